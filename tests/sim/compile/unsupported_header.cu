// unsupported_header.cu - includes a CUDA toolkit header the simulator does not provide; simcc must
// refuse it in one line instead of taking the real toolkit's copy from a default include path.
#include <cupti.h>

int main() { return 0; }
