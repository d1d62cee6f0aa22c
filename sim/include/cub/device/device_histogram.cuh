/* cub/device/device_histogram.cuh -- part of the simulator's CUB (cub/cub.cuh). */
#include "../cub.cuh"
