// Keeps gpuqual_kernels a valid library while it has no .cu file of its own yet; holds nothing.
