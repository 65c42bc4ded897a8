// Which SIMD variants of the SpMM micro-kernel the build holds: the execution layer
// (which widths exist, which the CPU runs) and the kernels (which to compile) agree
// through this one condition.
#pragma once

// Host compilers with GNU vector extensions hold the tile as explicit SIMD packs; on
// x86-64 they also compile 256- and 512-bit variants through function target
// attributes, whatever the baseline -march is.
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    !defined(__SYCL_DEVICE_ONLY__)
#define MIMD_SIMD_PACKS 1
#if defined(__x86_64__) && !defined(__NVCC__) && !defined(__CUDACC__)
#define MIMD_SIMD_X86_TARGETS 1
#endif
#endif

// Lane shuffles of GNU vectors (the 8 x 8 register transpose of LayoutLeft's packing):
// gcc >= 12 and clang; not nvcc's front end.
#if defined(MIMD_SIMD_PACKS) && !defined(__NVCC__) && !defined(__CUDACC__) && defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define MIMD_SIMD_SHUFFLE 1
#endif
#endif
