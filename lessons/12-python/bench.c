/**
 * @file bench.c
 * @brief Lesson 12's benchmark (`make bench LESSON=12 [SOLUTION=1]`): starts bench.py, which times
 *        your lessons 02 and 05 launched from C, through ctypes, from CuPy and Numba, against
 *        CuPy's and PyTorch's own operations, and writes a CSV.
 */
#include "launch/launch_python.h"

int main(int argc, char **argv) {
    launch_python("lessons/12-python/scripts/bench.py", argc, argv);
    return 127;
}
