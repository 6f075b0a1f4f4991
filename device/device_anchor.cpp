// Keeps gpuqual_device a valid library before its first source lands; holds nothing.
