/**
 * @file launch_python.h
 * @brief Lesson 12's demo and benchmark are Python scripts; main.c and bench.c only start them
 *        with the right interpreter and the paths of the libraries they load.
 */
#ifndef LESSON_12_LAUNCH_PYTHON_H
#define LESSON_12_LAUNCH_PYTHON_H

/** Runs `python <script> --libdir <folder of this program> --build <the build folder> args...` and
    never returns (exits 127 when no interpreter can be started). The interpreter is $PYTHON, else
    the first of the build folder's venv/bin/python (make python-env), python3 and /usr/bin/python3
    that imports NumPy. */
void launch_python(const char *script, int argc, char **argv);

#endif
