"""The torchvision side of run_image_pipeline.sh: the same training input
(PIL decode -> RandomResizedCrop(224) -> RandomHorizontalFlip -> ToTensor ->
Normalize, batches of 32, shuffled) over the JPEG files image_pipeline_bench
wrote, through a DataLoader with `num_workers` workers. Prints
"images_per_second X" over BATCHES batches after WARMUP.

    image_pipeline_torch.py JPG_DIR NUM_WORKERS [BATCHES] [WARMUP]
"""
import itertools
import sys
import time

import torch
import torchvision
from torchvision import transforms


def main():
    root, workers = sys.argv[1], int(sys.argv[2])
    batches = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    transform = transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    dataset = torchvision.datasets.ImageFolder(root, transform=transform)
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=True, num_workers=workers, drop_last=True,
                                         persistent_workers=workers > 0)
    epochs = itertools.chain.from_iterable(iter(loader) for _ in itertools.count())
    for _ in range(warmup):
        next(epochs)
    start = time.perf_counter()
    for _ in range(batches):
        images, _ = next(epochs)
        assert images.shape == (32, 3, 224, 224)
    print(f"images_per_second {batches * 32 / (time.perf_counter() - start):.1f}")


if __name__ == "__main__":
    main()
