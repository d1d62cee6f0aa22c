/**
 * @file main.c
 * @brief Lesson 12's demo (`make run LESSON=12 [ARGS=n]`): starts demo.py, which calls the kernels
 *        from Python every way this machine allows (ctypes, Numba, CuPy), checks each against
 *        NumPy and times it.
 */
#include "launch/launch_python.h"

int main(int argc, char **argv) {
    launch_python("lessons/12-python/scripts/demo.py", argc, argv);
    return 127;
}
