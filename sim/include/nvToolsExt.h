/* nvToolsExt.h -- NVTX (see nvtx3/nvToolsExt.h): no-ops in the simulator. */
#include "nvtx3/nvToolsExt.h"
