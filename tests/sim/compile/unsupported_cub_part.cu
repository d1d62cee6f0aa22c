// unsupported_cub_part.cu - a part of CUB the simulator does not provide (Debian's CUB has it, built
// from GPU assembly): refused in one line.
#include <cub/agent/agent_reduce.cuh>

int main() { return 0; }
