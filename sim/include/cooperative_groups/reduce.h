/* cooperative_groups/reduce.h -- in the simulator, cg::reduce, cg::inclusive_scan, cg::exclusive_scan and
   their functors (cg::plus, cg::less, cg::greater, cg::bit_and, cg::bit_or, cg::bit_xor) come with
   <cooperative_groups.h>. */
#include "../cooperative_groups.h"
