// inline_ptx.cu - GPU assembly in a kernel: refused in one line.
__global__ void lane(unsigned *out) {
    unsigned id;
    asm volatile("mov.u32 %0, %laneid;" : "=r"(id));
    out[threadIdx.x] = id;
}

int main() { return 0; }
