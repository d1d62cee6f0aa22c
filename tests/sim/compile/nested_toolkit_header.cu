// nested_toolkit_header.cu - the unsupported CUDA header hides in a header of the program's own.
#include "uses_cufft.h"

int main() { return 0; }
