/* cub/device/device_radix_sort.cuh -- part of the simulator's CUB (cub/cub.cuh). */
#include "../cub.cuh"
