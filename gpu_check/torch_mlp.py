"""PyTorch's side of the GPU benchmark (scripts/gpu_check.sh): the same MLPs
as gpu_bench.cu -- 32-64-32-5 at batch 64 and 1024-4096-4096-1000 at batch
1024, relu between, cross-entropy on logits, Adam(1e-3), four batches
already on the GPU, cycled -- timed the same way (5 warm-up steps, then N
steps, synchronised at the end). Also the large model under bf16 autocast.
Prints "RESULT <name> <value>" lines."""
import time

import torch


def samples_per_second(widths, batch, steps, bf16=False):
    torch.manual_seed(1)
    layers = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()
    batches = [(torch.randn(batch, widths[0], device="cuda"),
                torch.randint(0, widths[-1], (batch,), device="cuda")) for _ in range(4)]

    def step(i):
        x, y = batches[i % 4]
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
            loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()

    for i in range(5):
        step(i)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for i in range(steps):
        step(i)
    torch.cuda.synchronize()
    return batch * steps / (time.perf_counter() - start)


def main():
    # Full float32 GEMMs, as Sluice's cuBLAS calls (no TF32).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print("RESULT mlp_small_torch_samples_per_s %.4g" % samples_per_second([32, 64, 32, 5], 64, 300))
    print("RESULT mlp_large_torch_samples_per_s %.4g" % samples_per_second([1024, 4096, 4096, 1000], 1024, 30))
    print("RESULT mlp_large_torch_bf16_samples_per_s %.4g"
          % samples_per_second([1024, 4096, 4096, 1000], 1024, 30, bf16=True))


if __name__ == "__main__":
    main()
