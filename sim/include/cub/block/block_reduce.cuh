/* cub/block/block_reduce.cuh -- part of the simulator's CUB (cub/cub.cuh). */
#include "../cub.cuh"
