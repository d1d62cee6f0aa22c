/* cub/device/device_select.cuh -- part of the simulator's CUB (cub/cub.cuh). */
#include "../cub.cuh"
