"""sluice.fn's random_posterize, random_equalize, random_autocontrast,
random_adjust_sharpness, random_invert, random_affine and random_rotation:
each changed image against a NumPy reference of torchvision's formula, and,
where torchvision is installed (the benchmarks' extra packages), the
warps against torchvision's own F.affine and F.rotate."""

import numpy as np
import pytest

import sluice


def pictures(count=24, height=20, width=17):
    rng = np.random.default_rng(5)
    return rng.integers(0, 256, (count, height, width, 3), dtype=np.uint8)


def mapped(fn, images):
    ds = sluice.Dataset.from_tensor_slices({"image": images}).enumerate()
    return [e["image"] for e in ds.map(fn)]


def equalize(image):
    """torchvision's _scale_channel per channel, in NumPy."""
    out = image.copy()
    for c in range(image.shape[-1]):
        channel = image[..., c]
        hist = np.bincount(channel.ravel(), minlength=256)
        nonzero = hist[hist != 0]
        step = nonzero[:-1].sum() // 255
        if step == 0:
            continue
        lut = (np.cumsum(hist) + step // 2) // step
        lut = np.clip(np.concatenate([[0], lut[:-1]]), 0, 255)
        out[..., c] = lut[channel]
    return out


def autocontrast(image):
    out = np.empty_like(image)
    for c in range(image.shape[-1]):
        channel = image[..., c].astype(np.float32)
        low, high = channel.min(), channel.max()
        if high == low:
            out[..., c] = image[..., c]
            continue
        scale = (np.float32(1) / (high - low)) * np.float32(255)  # torch: 255 / t is reciprocal(t) * 255
        out[..., c] = np.clip((channel - low) * scale, 0, 255).astype(np.uint8)
    return out


def sharpen(image, factor):
    x = image.astype(np.float32)
    smooth = x.copy()
    around = sum(x[1 + dy:x.shape[0] - 1 + dy, 1 + dx:x.shape[1] - 1 + dx]
                 for dy in (-1, 0, 1) for dx in (-1, 0, 1)) + 4 * x[1:-1, 1:-1]
    smooth[1:-1, 1:-1] = np.round(around / 13)
    return np.clip(np.float32(factor) * x + np.float32(1 - factor) * smooth, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("fn,reference", [
    (sluice.fn.random_posterize("image", bits=3, seed=1, index="index"), lambda x: x & 0xE0),
    (sluice.fn.random_equalize("image", seed=1, index="index"), equalize),
    (sluice.fn.random_autocontrast("image", seed=1, index="index"), autocontrast),
    (sluice.fn.random_adjust_sharpness("image", sharpness_factor=2.5, seed=1, index="index"),
     lambda x: sharpen(x, 2.5)),
    (sluice.fn.random_invert("image", seed=1, index="index"), lambda x: 255 - x),
])
def test_changes_some_images_by_torchvisions_formula(fn, reference):
    images = pictures()
    out = mapped(fn, images)
    changed = [not np.array_equal(o, i) for o, i in zip(out, images)]
    assert 0 < sum(changed) < len(images)
    for o, i, c in zip(out, images, changed):
        if c:
            np.testing.assert_array_equal(o, reference(i))


def test_float_images_use_max_value():
    unit = np.array([[[0.25], [0.5]], [[0.75], [0.5]]], np.float32)
    ds = sluice.Dataset.from_tensors({"image": unit}).enumerate()
    inverted = next(iter(ds.map(sluice.fn.random_invert("image", probability=1, max_value=1, index="index"))))
    np.testing.assert_allclose(inverted["image"], 1 - unit)
    stretched = next(iter(ds.map(sluice.fn.random_autocontrast("image", probability=1, max_value=1, index="index"))))
    np.testing.assert_allclose(stretched["image"], [[[0], [0.5]], [[1], [0.5]]])


def test_errors():
    with pytest.raises(ValueError, match="random_posterize: bits is required"):
        sluice.fn.random_posterize("image")
    with pytest.raises(ValueError, match=r"random_posterize: bits must be in \[0, 8\], got 9"):
        sluice.fn.random_posterize("image", bits=9)
    with pytest.raises(ValueError, match="random_affine: degrees is required"):
        sluice.fn.random_affine("image")
    with pytest.raises(ValueError, match=r"random_affine: shear takes 1, 2 or 4 values"):
        sluice.fn.random_affine("image", degrees=3, shear=[1, 2, 3])
    with pytest.raises(ValueError, match=r"random_affine: translate must be in \[0, 1\], got \[2, 0\]"):
        sluice.fn.random_affine("image", degrees=3, translate=(2, 0))
    floats = sluice.Dataset.from_tensor_slices({"image": pictures(2).astype(np.float32)})
    with pytest.raises(ValueError, match="expected a uint8 image of 1 or 3 channels"):
        floats.map(sluice.fn.random_equalize("image"))


def test_warps_are_the_same_at_any_parallelism():
    images = pictures()
    ds = sluice.Dataset.from_tensor_slices({"image": images}).enumerate()
    fn = sluice.fn.random_affine("image", degrees=30, translate=(0.2, 0.1), scale=(0.7, 1.2), shear=(5, 10, -5, 0),
                                 interpolation="bilinear", fill=[9, 8, 7], seed=4, index="index")
    one = [e["image"] for e in ds.map(fn)]
    three = [e["image"] for e in ds.map(fn, num_parallel_calls=3)]
    assert all(np.array_equal(a, b) for a, b in zip(one, three))
    assert sum(not np.array_equal(o, i) for o, i in zip(one, images)) == len(images)


def test_fixed_warps_give_torchvisions_values():
    torch = pytest.importorskip("torch")
    F = pytest.importorskip("torchvision.transforms.functional")
    from torchvision.transforms import InterpolationMode

    images = pictures(4)
    chw = [torch.from_numpy(i).permute(2, 0, 1).contiguous() for i in images]
    for interpolation, mode in (("nearest", InterpolationMode.NEAREST), ("bilinear", InterpolationMode.BILINEAR)):
        affine = mapped(sluice.fn.random_affine("image", degrees=(23, 23), scale=(1.25, 1.25), shear=(7, 7, -4, -4),
                                                interpolation=interpolation, fill=[10, 20, 30], center=(3, 5),
                                                index="index"), images)
        rotated = mapped(sluice.fn.random_rotation("image", degrees=(-41, -41), interpolation=interpolation,
                                                   index="index"), images)
        for i in range(len(images)):
            want = F.affine(chw[i], angle=23, translate=[0, 0], scale=1.25, shear=[7, -4], interpolation=mode,
                            fill=[10, 20, 30], center=[3, 5]).permute(1, 2, 0).numpy()
            tolerance = 0 if interpolation == "nearest" else 1
            assert np.abs(affine[i].astype(int) - want.astype(int)).max() <= tolerance
            want = F.rotate(chw[i], -41, interpolation=mode).permute(1, 2, 0).numpy()
            assert np.abs(rotated[i].astype(int) - want.astype(int)).max() <= tolerance
