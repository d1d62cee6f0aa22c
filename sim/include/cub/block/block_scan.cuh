/* cub/block/block_scan.cuh -- part of the simulator's CUB (cub/cub.cuh). */
#include "../cub.cuh"
