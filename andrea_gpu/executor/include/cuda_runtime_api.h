// cuda_runtime_api.h for the CPU executor: everything it declares comes from prelude.h.
#pragma once
