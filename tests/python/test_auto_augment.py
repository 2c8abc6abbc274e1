"""sluice.fn.auto_augment, rand_augment, trivial_augment_wide and augmix:
draws, determinism and errors; and, where torchvision is installed (the
benchmarks' extra packages, not the test set), every output of the first
three is one of torchvision's own outputs for the ops and magnitudes its
policy can draw."""

import numpy as np
import pytest

import sluice


def pictures(count, height=12, width=10):
    rng = np.random.default_rng(3)
    return rng.integers(0, 256, (count, height, width, 3), dtype=np.uint8)


def augmented(fn, images, parallelism=None):
    ds = sluice.Dataset.from_tensor_slices({"image": images}).enumerate()
    return [e["image"] for e in ds.map(fn, num_parallel_calls=parallelism)]


def test_same_at_any_parallelism_and_changes_many_images():
    images = pictures(24)
    for fn in (sluice.fn.auto_augment("image", policy="cifar10", seed=5, index="index"),
               sluice.fn.augmix("image", severity=5, alpha=0.5, seed=5, index="index"),
               sluice.fn.rand_augment("image", num_ops=2, magnitude=9, seed=5, index="index"),
               sluice.fn.trivial_augment_wide("image", interpolation="bilinear", fill=[1, 2, 3], seed=5,
                                              index="index")):
        sequential, parallel = augmented(fn, images), augmented(fn, images, 3)
        assert all(np.array_equal(a, b) for a, b in zip(sequential, parallel))
        assert all(o.shape == (12, 10, 3) and o.dtype == np.uint8 for o in sequential)
        assert sum(not np.array_equal(o, i) for o, i in zip(sequential, images)) > len(images) // 4


def test_num_ops_zero_keeps_the_images():
    images = pictures(4)
    out = augmented(sluice.fn.rand_augment("image", num_ops=0, seed=1, index="index"), images)
    assert all(np.array_equal(o, i) for o, i in zip(out, images))


def test_errors():
    with pytest.raises(ValueError, match=r"rand_augment: magnitude must be in \[0, num_magnitude_bins = 31\), got 31"):
        sluice.fn.rand_augment("image", magnitude=31)
    with pytest.raises(ValueError, match=r"augmix: mixture_width must be in \[1, 16\], got 17"):
        sluice.fn.augmix("image", mixture_width=17)
    with pytest.raises(ValueError, match="policy must be \"imagenet\", \"cifar10\" or \"svhn\", got \"reduced\""):
        sluice.fn.auto_augment("image", policy="reduced")
    with pytest.raises(ValueError, match="interpolation must be \"nearest\" or \"bilinear\", got \"bicubic\""):
        sluice.fn.trivial_augment_wide("image", interpolation="bicubic")
    floats = sluice.Dataset.from_tensor_slices({"image": pictures(2).astype(np.float32)})
    with pytest.raises(ValueError, match="expected a uint8 image of 1 or 3 channels"):
        floats.map(sluice.fn.trivial_augment_wide("image"))


def torchvision_outputs(image, policy, bins):
    """Every output torchvision's policy can give for `image` (HWC)."""
    torch = pytest.importorskip("torch")
    autoaugment = pytest.importorskip("torchvision.transforms.autoaugment")
    from torchvision.transforms import InterpolationMode

    chw = torch.from_numpy(image).permute(2, 0, 1).contiguous()
    space = policy._augmentation_space(31, tuple(image.shape[:2])) if bins is not None \
        else policy._augmentation_space(31)
    outputs = []
    for name, (magnitudes, signed) in space.items():
        values = [0.0] if magnitudes.ndim == 0 else [float(magnitudes[b].item()) for b in
                                                     (range(31) if bins is None else [bins])]
        for value in values:
            for sign in ((1, -1) if signed else (1,)):
                out = autoaugment._apply_op(chw, name, sign * value, interpolation=InterpolationMode.NEAREST,
                                            fill=None)
                outputs.append(out.permute(1, 2, 0).numpy())
    return outputs


def test_trivial_augment_wide_gives_torchvisions_outputs():
    autoaugment = pytest.importorskip("torchvision.transforms.autoaugment")
    images = pictures(6)
    out = augmented(sluice.fn.trivial_augment_wide("image", seed=2, index="index"), images)
    for o, image in zip(out, images):
        candidates = torchvision_outputs(image, autoaugment.TrivialAugmentWide(), None)
        assert any(np.array_equal(o, c) for c in candidates)


def test_rand_augment_gives_torchvisions_outputs():
    autoaugment = pytest.importorskip("torchvision.transforms.autoaugment")
    images = pictures(6)
    out = augmented(sluice.fn.rand_augment("image", num_ops=1, magnitude=20, seed=2, index="index"), images)
    for o, image in zip(out, images):
        candidates = torchvision_outputs(image, autoaugment.RandAugment(), 20)
        assert any(np.array_equal(o, c) for c in candidates)


def test_auto_augment_gives_torchvisions_outputs():
    torch = pytest.importorskip("torch")
    autoaugment = pytest.importorskip("torchvision.transforms.autoaugment")
    from torchvision.transforms import InterpolationMode

    images = pictures(4)
    for policy in ("imagenet", "cifar10", "svhn"):
        transform = autoaugment.AutoAugment(autoaugment.AutoAugmentPolicy(policy))
        out = augmented(sluice.fn.auto_augment("image", policy=policy, seed=3, index="index"), images)
        for o, image in zip(out, images):
            chw = torch.from_numpy(image).permute(2, 0, 1).contiguous()
            space = transform._augmentation_space(10, image.shape[:2])
            candidates = []
            for steps in transform.policies:
                # Each step applied or not, each signed op either way.
                for applied in ((0, 0), (0, 1), (1, 0), (1, 1)):
                    for signs in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                        img = chw
                        for (name, _, bin), on, sign in zip(steps, applied, signs):
                            if not on:
                                continue
                            magnitudes, signed = space[name]
                            m = float(magnitudes[bin].item()) if bin is not None else 0.0
                            img = autoaugment._apply_op(img, name, m * (sign if signed else 1),
                                                        interpolation=InterpolationMode.NEAREST, fill=None)
                        candidates.append(img.permute(1, 2, 0).numpy())
            assert any(np.array_equal(o, c) for c in candidates), policy
