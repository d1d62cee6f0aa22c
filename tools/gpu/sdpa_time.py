#!/usr/bin/env python3
"""sdpa_time.py -- PyTorch's scaled_dot_product_attention in bf16 on the shapes of lesson 19's flash
attention (solutions/19-fused-kernels/steps/flash_bf16_bench.cu), timed with CUDA events, median of
20 after 3 warm-up calls. Prints one line per mask: `SDPA causal C tflops T ms M backend B`, with
TFLOP/s = 4 B H N^2 d / t (halved with the causal mask), the bench's formula.

    python3 tools/gpu/sdpa_time.py [B H N d]      (default 8 16 4096 64)
"""
import statistics
import sys

import torch
import torch.nn.functional as F


def median_ms(fn, reps=20):
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def main():
    B, H, N, d = (int(x) for x in sys.argv[1:5]) if len(sys.argv) >= 5 else (8, 16, 4096, 64)
    g = torch.Generator(device="cuda").manual_seed(0)
    # (B, H, N, d): SDPA's layout, as the bench's (b, h) blocks of N rows of d
    q, k, v = (torch.empty(B, H, N, d, device="cuda", dtype=torch.bfloat16).uniform_(-2, 2, generator=g) for _ in range(3))
    print("SDPA torch %s, %s" % (torch.__version__, torch.cuda.get_device_name()))
    for causal in (0, 1):
        flops = 4.0 * B * H * N * N * d / (2 if causal else 1)
        # the default choice, then the flash backend alone (the one this kernel is measured against)
        choices = [("default", None)]
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            choices.append(("flash", SDPBackend.FLASH_ATTENTION))
        except ImportError:
            pass
        for label, backend in choices:
            def run():
                return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
            try:
                if backend is None:
                    ms = median_ms(run)
                else:
                    with sdpa_kernel(backend):
                        ms = median_ms(run)
            except RuntimeError as e:
                print("SDPA causal %d backend %s failed: %s" % (causal, label, str(e).splitlines()[0]))
                continue
            print("SDPA causal %d tflops %.1f ms %.3f backend %s" % (causal, flops / (ms * 1e-3) / 1e12, ms, label))


if __name__ == "__main__":
    main()
