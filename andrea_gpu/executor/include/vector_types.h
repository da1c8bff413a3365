// vector_types.h for the CPU executor: everything it declares comes from prelude.h.
#pragma once
