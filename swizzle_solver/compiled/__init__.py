"""Reading compiled kernels (DESIGN.md section 15): PTX, .cu through nvcc, Triton/Gluon TTGIR."""
