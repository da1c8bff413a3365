// math_constants.h for the CPU executor and NVRTC: CUDA's named float and double constants.
#pragma once
#define CUDART_PI_F 3.141592654f
#define CUDART_PIO2_F 1.570796327f
#define CUDART_2_OVER_PI_F 0.636619772f
#define CUDART_SQRT_HALF_F 0.707106781f
#define CUDART_LN2_F 0.693147181f
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_PI 3.1415926535897931e+0
#define CUDART_PIO2 1.5707963267948966e+0
#define CUDART_LN2 6.9314718055994529e-1
#define CUDART_INF __longlong_as_double(0x7ff0000000000000ULL)
#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)
