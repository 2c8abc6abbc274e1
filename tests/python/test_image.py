"""sluice.fn's image functions: decoders on JPEG files that libjpeg-turbo's
cjpeg writes, against djpeg's pixels; errors per element."""

import re
import subprocess

import numpy as np
import pytest

import sluice


def pnm(image):
    h, w, c = image.shape
    return (b"P6" if c == 3 else b"P5") + f"\n{w} {h}\n255\n".encode() + image.tobytes()


def read_pnm(data):
    header = re.match(rb"(P[56])\s+(\d+)\s+(\d+)\s+255\s", data)
    magic, w, h = header.group(1), int(header.group(2)), int(header.group(3))
    c = 3 if magic == b"P6" else 1
    return np.frombuffer(data[header.end() :], np.uint8).reshape(h, w, c)


@pytest.fixture
def jpeg(tmp_path):
    rng = np.random.default_rng(1)
    image = (np.add.outer(np.arange(40), np.arange(60))[:, :, None] * [1, 2, 3] % 256).astype(np.uint8)
    image = (image + rng.integers(0, 16, image.shape)).astype(np.uint8)
    (tmp_path / "in.ppm").write_bytes(pnm(image))
    subprocess.run(["cjpeg", "-quality", "90", "-sample", "2x2", "-outfile", str(tmp_path / "a.jpg"), str(tmp_path / "in.ppm")], check=True)
    return (tmp_path / "a.jpg").read_bytes()


def djpeg(tmp_path, data, *flags):
    (tmp_path / "ref.jpg").write_bytes(data)
    out = subprocess.run(["djpeg", "-pnm", *flags, str(tmp_path / "ref.jpg")], check=True, capture_output=True).stdout
    return read_pnm(out)


def test_decode_jpeg_matches_djpeg(tmp_path, jpeg):
    ds = sluice.Dataset.from_tensor_slices({"image": [jpeg, jpeg]})
    (full, _) = list(ds.map(sluice.fn.decode_jpeg("image", channels=3)))
    assert full["image"].dtype == np.uint8 and full["image"].shape == (40, 60, 3)
    assert np.array_equal(full["image"], djpeg(tmp_path, jpeg))
    (half, _) = list(ds.map(sluice.fn.decode_jpeg("image", ratio=2, dct_method="fast"), num_parallel_calls=2))
    assert np.array_equal(half["image"], djpeg(tmp_path, jpeg, "-scale", "1/2", "-dct", "fast"))
    gray = next(iter(sluice.Dataset.from_tensors(jpeg).map(sluice.fn.decode_image(channels=1))))
    assert np.array_equal(gray, djpeg(tmp_path, jpeg, "-grayscale"))


def test_decode_errors(jpeg):
    ds = sluice.Dataset.from_tensor_slices([jpeg, jpeg[: len(jpeg) // 2], b"", jpeg])
    decoded = ds.map(sluice.fn.decode_jpeg(channels=3))
    it = iter(decoded)
    assert next(it).shape == (40, 60, 3)
    with pytest.raises(sluice.DataLossError, match="Premature end of JPEG file"):
        next(it)
    with pytest.raises(sluice.DataLossError, match="empty"):
        next(it)
    assert next(it).shape == (40, 60, 3)
    assert len(list(decoded.ignore_errors())) == 2
    with pytest.raises(sluice.ResourceExhaustedError, match="exceeds the limit of 100 pixels"):
        list(sluice.Dataset.from_tensors(jpeg).map(sluice.fn.decode_jpeg(max_pixels=100)))
    with pytest.raises(sluice.InvalidArgumentError, match="decode_jpeg: ratio must be 1, 2, 4 or 8, got 3"):
        sluice.fn.decode_jpeg(ratio=3)
    with pytest.raises(sluice.InvalidArgumentError, match="unknown DCT method 'float'"):
        sluice.fn.decode_jpeg(dct_method="float")


def test_resize_documented_identity():
    # tf.image.resize's documented vector: the 5x5 identity to [3, 5], bilinear.
    image = np.eye(5, dtype=np.float32)[:, :, None]
    (out,) = list(sluice.Dataset.from_tensors(image).map(sluice.fn.resize(None, [3, 5])))
    want = [[2 / 3, 1 / 3, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1 / 3, 2 / 3]]
    assert out.dtype == np.float32 and np.allclose(out[:, :, 0], want, atol=1e-6)


def test_antialiased_bicubic_resize_matches_torch():
    # torch's antialiased bicubic is PIL's: Keys (a = -0.5), widened when shrinking, renormalised at the edges.
    torch = pytest.importorskip("torch")
    image = np.random.default_rng(3).uniform(0, 255, (37, 53, 3)).astype(np.float32)
    as_torch = torch.from_numpy(image).permute(2, 0, 1)[None]
    for size in [(24, 20), (37, 53), (61, 90), (5, 9)]:
        (out,) = list(sluice.Dataset.from_tensors(image).map(sluice.fn.resize(None, size, method="bicubic",
                                                                              antialias=True)))
        want = torch.nn.functional.interpolate(as_torch, size=size, mode="bicubic", antialias=True,
                                               align_corners=False)[0].permute(1, 2, 0).numpy()
        assert out.shape == (*size, 3) and np.allclose(out, want, atol=2e-3), size


def test_imagenet_style_eval_pipeline(jpeg):
    mean, std = [123.675, 116.28, 103.53], [58.395, 57.12, 57.375]
    ds = (
        sluice.Dataset.from_tensor_slices({"image": [jpeg] * 3, "label": [0, 1, 2]})
        .map(sluice.fn.decode_jpeg("image", channels=3), num_parallel_calls=sluice.AUTOTUNE)
        .map(sluice.fn.resize("image", 32, method="area"))
        .map(sluice.fn.center_crop("image", 24))
        .map(sluice.fn.crop_mirror_normalize("image", crop=(20, 16), mean=mean, std=std, mirror=True))
        .batch(3)
    )
    (batch,) = list(ds)
    assert batch["image"].shape == (3, 3, 20, 16) and batch["image"].dtype == np.float32
    (cropped,) = list(
        sluice.Dataset.from_tensors(jpeg)
        .map(sluice.fn.decode_jpeg(channels=3))
        .map(sluice.fn.resize(None, 32, method="area"))
        .map(sluice.fn.center_crop(None, 24))
    )
    window = cropped[2:22, 4:20][:, ::-1]
    want = ((window - np.float32(mean)) / np.float32(std)).transpose(2, 0, 1)
    assert np.allclose(batch["image"][1], want, atol=1e-5)
    half = next(iter(sluice.Dataset.from_tensors(cropped).map(sluice.fn.crop_mirror_normalize(layout="HWC", dtype="float16"))))
    assert half.dtype == np.float16 and half.shape == (24, 24, 3)
    with pytest.raises(sluice.InvalidArgumentError, match=r"crop_mirror_normalize: std must not be 0"):
        sluice.fn.crop_mirror_normalize(std=0)
    with pytest.raises(sluice.InvalidArgumentError, match="unknown resize method 'cubic'.*or bicubic"):
        sluice.fn.resize(None, 4, method="cubic")


def test_imagenet_style_training_pipeline(jpeg):
    def build(seed):
        return (
            sluice.Dataset.from_tensor_slices({"image": [jpeg] * 8})
            .seed(seed)
            .map(sluice.fn.decode_jpeg_random_crop("image", 24), num_parallel_calls=3)
            .map(sluice.fn.random_flip("image"))
            .map(sluice.fn.crop_mirror_normalize("image", mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375]))
            .batch(4)
        )

    ds = build(5)
    first, again = list(ds), list(ds)
    assert len(first) == 2 and first[0]["image"].shape == (4, 3, 24, 24)
    assert list(first[0]) == ["image"]  # no enumerate needed
    # The same pipeline seed draws the same epochs; each epoch draws anew.
    rebuilt = build(5)
    for a, b, c, d in zip(first, list(rebuilt), again, list(rebuilt)):
        assert np.array_equal(a["image"], b["image"]) and np.array_equal(c["image"], d["image"])
    assert not all(np.array_equal(a["image"], c["image"]) for a, c in zip(first, again))
    assert not all(np.array_equal(a["image"], b["image"]) for a, b in zip(first, list(build(6))))
    # Distinct windows for the same file: each element draws its own.
    assert not np.array_equal(first[0]["image"][0], first[0]["image"][1])
    # Parallelism does not change the draws.
    sequential = (
        sluice.Dataset.from_tensor_slices({"image": [jpeg] * 8}).seed(5)
        .map(sluice.fn.decode_jpeg_random_crop("image", 24))
    )
    parallel = (
        sluice.Dataset.from_tensor_slices({"image": [jpeg] * 8}).seed(5)
        .map(sluice.fn.decode_jpeg_random_crop("image", 24), num_parallel_calls=sluice.AUTOTUNE)
    )
    assert all(np.array_equal(a["image"], b["image"]) for a, b in zip(sequential, parallel))
    assert "pipeline_seed=5" in sequential.describe()
    assert "seed: 5" in sequential.to_spec()
    # A bicubic resize of the same windows (timm's RandomResizedCrop): close to the bilinear one, not equal.
    # (Both first epochs: each epoch of a dataset draws anew.)
    def crops(method):
        return sluice.Dataset.from_tensor_slices({"image": [jpeg] * 8}).seed(5).map(
            sluice.fn.decode_jpeg_random_crop("image", 24, method=method))

    bicubic = crops("bicubic")
    assert 'method: "bicubic"' in bicubic.to_spec()
    pairs = [(a["image"], b["image"]) for a, b in zip(crops("bilinear"), bicubic)]
    assert all(b.dtype == np.float32 and b.shape == a.shape for a, b in pairs)
    assert not all(np.array_equal(a, b) for a, b in pairs)
    assert all(np.abs(a - b).mean() < 2 for a, b in pairs)
    with pytest.raises(sluice.InvalidArgumentError, match=r"the element index: no component named 'index'"):
        sluice.Dataset.from_tensors(jpeg).map(sluice.fn.random_flip(seed=1, index="index"))
    with pytest.raises(ValueError, match="direction"):
        sluice.fn.random_flip(direction="diagonal")


def test_color_jitter():
    image = np.linspace(40, 200, 6 * 5 * 3, dtype=np.float32).reshape(6, 5, 3)
    ds = sluice.Dataset.from_tensor_slices({"image": np.stack([image] * 6)}).enumerate()
    bright = [e["image"] for e in ds.map(sluice.fn.color_jitter("image", brightness=0.2, seed=3, index="index"))]
    factors = [float(b[0, 0, 0] / image[0, 0, 0]) for b in bright]
    for b, f in zip(bright, factors):
        assert 0.8 <= f <= 1.2
        assert np.allclose(b, np.clip(image * f, 0, 255), atol=1e-3)
    assert len(set(factors)) == len(factors)  # one draw per element index
    full = ds.map(sluice.fn.color_jitter("image", 0.4, 0.4, 0.4, 0.1, seed=4, index="index"), num_parallel_calls=3)
    first, again = [e["image"] for e in full], [e["image"] for e in full]
    assert all(np.array_equal(a, b) and a.dtype == np.float32 and a.shape == (6, 5, 3) for a, b in zip(first, again))
    as_uint8 = next(iter(ds.map(sluice.fn.cast("image", "uint8")).map(sluice.fn.color_jitter("image", hue=0.5))))
    assert as_uint8["image"].dtype == np.uint8
    with pytest.raises(sluice.InvalidArgumentError, match=r"color_jitter: hue must be in \[0, 0.5\], got 0.7"):
        sluice.fn.color_jitter(hue=0.7)
    # RandomApply: with probability 0.5 some elements are left as they are, the others jittered.
    some = [e["image"] for e in ds.map(sluice.fn.color_jitter("image", brightness=0.5, probability=0.5, seed=3,
                                                              index="index"))]
    kept = [np.array_equal(s, image) for s in some]
    assert any(kept) and not all(kept)
    with pytest.raises(sluice.InvalidArgumentError, match=r"color_jitter: probability must be in \[0, 1\], got 2"):
        sluice.fn.color_jitter(probability=2)


def test_random_grayscale():
    image = np.linspace(0, 250, 4 * 3 * 3, dtype=np.float32).reshape(4, 3, 3).astype(np.uint8)
    ds = sluice.Dataset.from_tensor_slices({"image": np.stack([image] * 16)}).enumerate()
    out = [e["image"] for e in ds.map(sluice.fn.random_grayscale("image", probability=0.5, seed=2, index="index"),
                                      num_parallel_calls=2)]
    gray = image @ np.array([0.2989, 0.587, 0.114])  # rounded to nearest in float32: within half a level
    grayed = [bool((o == o[..., :1]).all() and (np.abs(o[..., 0] - gray) <= 0.51).all()) for o in out]
    kept = [np.array_equal(o, image) for o in out]
    assert all(g or k for g, k in zip(grayed, kept))
    assert any(grayed) and any(kept)
    assert all(o.dtype == np.uint8 and o.shape == (4, 3, 3) for o in out)
    again = [e["image"] for e in ds.map(sluice.fn.random_grayscale("image", probability=0.5, seed=2, index="index"))]
    assert all(np.array_equal(a, b) for a, b in zip(out, again))
    with pytest.raises(sluice.InvalidArgumentError, match=r"random_grayscale: probability must be in \[0, 1\]"):
        sluice.fn.random_grayscale(probability=-1)


def _windows(padded, height, width):
    """Every height x width window of padded, by its place."""
    return {(top, left): padded[top:top + height, left:left + width]
            for top in range(padded.shape[0] - height + 1) for left in range(padded.shape[1] - width + 1)}


def test_random_crop_pads_as_numpy_and_places_windows_at_random():
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (6, 7, 3), dtype=np.uint8)
    ds = sluice.Dataset.from_tensor_slices({"image": np.stack([image] * 24)}).enumerate()
    # padding (left, top, right, bottom), as torchvision's; the crop as large as the padded image: one window.
    for mode in ["constant", "edge", "reflect", "symmetric"]:
        fn = sluice.fn.random_crop("image", size=(6 + 2 + 4, 7 + 1 + 3), padding=(1, 2, 3, 4), padding_mode=mode,
                                   fill=200, seed=1, index="index")
        want = np.pad(image, ((2, 4), (1, 3), (0, 0)), mode=mode,
                      **({"constant_values": 200} if mode == "constant" else {}))
        for e in ds.take(2).map(fn):
            np.testing.assert_array_equal(e["image"], want)
    # pad_if_needed pads the padded image again, on both sides by what it lacks (torchvision's RandomCrop).
    fn = sluice.fn.random_crop("image", size=(12, 8), padding=1, pad_if_needed=True, padding_mode="reflect", seed=3,
                               index="index")
    once = np.pad(image, ((1, 1), (1, 1), (0, 0)), mode="reflect")
    twice = np.pad(once, ((4, 4), (0, 0), (0, 0)), mode="reflect")
    windows = _windows(twice, 12, 8)
    places = set()
    for e in ds.map(fn, num_parallel_calls=2):
        out = e["image"]
        assert out.shape == (12, 8, 3) and out.dtype == np.uint8
        place = [p for p, w in windows.items() if np.array_equal(w, out)]
        assert place, "the crop is no window of the padded image"
        places.add(place[0])
    assert len(places) > 3
    with pytest.raises(sluice.InvalidArgumentError, match=r"crop \[9, 9\] is larger than the image \[6, 7\]"):
        list(ds.map(sluice.fn.random_crop("image", size=9, seed=1)))
    with pytest.raises(ValueError, match="padding takes 1, 2 or 4 values"):
        sluice.fn.random_crop("image", size=3, padding=(1, 2, 3))


def test_gaussian_blur_matches_torchvisions_formula():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(6)
    image = rng.integers(0, 256, (20, 17, 3), dtype=np.uint8)
    ds = sluice.Dataset.from_tensors({"image": image}).enumerate()
    out = next(iter(ds.map(sluice.fn.gaussian_blur("image", kernel_size=(7, 5), sigma=1.3, seed=1,
                                                    index="index"))))["image"]
    # torchvision's gaussian_blur: reflect padding by half the kernel, then a conv2d with the normalised kernel.
    def kernel(size):
        x = torch.linspace(-(size - 1) * 0.5, (size - 1) * 0.5, steps=size)
        pdf = torch.exp(-0.5 * (x / 1.3).pow(2))
        return pdf / pdf.sum()
    k2d = torch.mm(kernel(7)[:, None], kernel(5)[None, :]).expand(3, 1, 7, 5)
    x = torch.from_numpy(image).permute(2, 0, 1)[None].float()
    x = torch.nn.functional.pad(x, [2, 2, 3, 3], mode="reflect")
    want = torch.round(torch.nn.functional.conv2d(x, k2d, groups=3))[0].permute(1, 2, 0).numpy()
    assert out.dtype == np.uint8 and out.shape == image.shape
    assert np.abs(out.astype(np.int32) - want.astype(np.int32)).max() <= 1
    with pytest.raises(sluice.InvalidArgumentError, match="kernel size must be odd"):
        sluice.fn.gaussian_blur("image", kernel_size=4)
    with pytest.raises(ValueError, match="kernel_size is required"):
        sluice.fn.gaussian_blur("image")


def test_random_solarize():
    image = np.arange(0, 256, 4, dtype=np.uint8).reshape(4, 4, 4)[..., :3]
    ds = sluice.Dataset.from_tensor_slices({"image": np.stack([image] * 16)}).enumerate()
    out = [e["image"] for e in ds.map(sluice.fn.random_solarize("image", threshold=128, probability=0.5, seed=4,
                                                                  index="index"))]
    solarized = np.where(image >= 128, 255 - image, image)
    assert all(np.array_equal(o, solarized) or np.array_equal(o, image) for o in out)
    assert any(np.array_equal(o, solarized) for o in out) and any(np.array_equal(o, image) for o in out)
    unit = (image / 255).astype(np.float32)
    one = next(iter(sluice.Dataset.from_tensors({"image": unit}).enumerate().map(
        sluice.fn.random_solarize("image", threshold=0.5, probability=1, max_value=1, seed=1, index="index"))))
    np.testing.assert_array_equal(one["image"], np.where(unit >= 0.5, 1 - unit, unit))


def test_mixup_and_cutmix_after_batch():
    rng = np.random.default_rng(7)
    images = rng.standard_normal((16, 3, 4, 5)).astype(np.float32)
    labels = np.arange(16) % 4
    ds = sluice.Dataset.from_tensor_slices({"image": images, "label": labels}).batch(8)
    mixed = list(ds.map(sluice.fn.mixup("image", "label", num_classes=4, mixup_alpha=0.8, label_smoothing=0.0,
                                        seed=5), num_parallel_calls=2))
    assert len(mixed) == 2
    for b, e in enumerate(mixed):
        x, y = images[8 * b:8 * b + 8], labels[8 * b:8 * b + 8]
        assert e["label"].shape == (8, 4) and e["label"].dtype == np.float32
        lam = e["label"][0, y[0]]
        np.testing.assert_allclose(e["image"], lam * x + (1 - lam) * x[::-1], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(e["label"], lam * np.eye(4)[y] + (1 - lam) * np.eye(4)[y[::-1]], atol=1e-6)
    cut = list(ds.map(sluice.fn.mixup("image", "label", num_classes=4, mixup_alpha=0.0, cutmix_alpha=1.0,
                                      label_smoothing=0.0, seed=6)))
    for b, e in enumerate(cut):
        x, y = images[8 * b:8 * b + 8], labels[8 * b:8 * b + 8]
        pasted = e["image"][0, 0] == x[7, 0]
        assert (pasted | (e["image"][0, 0] == x[0, 0])).all()
        np.testing.assert_allclose(e["label"][0, y[0]], 1 - pasted.mean(), atol=1e-6)
    with pytest.raises(sluice.InvalidArgumentError, match="mixup_alpha or cutmix_alpha must be above 0"):
        sluice.fn.mixup("image", "label", mixup_alpha=0.0)


def test_random_erasing():
    rng = np.random.default_rng(8)
    image = rng.standard_normal((3, 32, 24)).astype(np.float32) + 10  # no value near 0 or -1
    ds = sluice.Dataset.from_tensor_slices({"image": np.stack([image] * 12)}).enumerate()
    out = [e["image"] for e in ds.map(sluice.fn.random_erasing("image", probability=0.8, value=(-1, -2, -3), seed=2,
                                                                 index="index"))]
    erased = 0
    for o in out:
        changed = o != image
        if not changed.any():
            continue
        erased += 1
        assert (changed[0] == changed[1]).all() and (changed[0] == changed[2]).all()
        rows, cols = np.nonzero(changed[0])
        box = changed[0][rows.min():rows.max() + 1, cols.min():cols.max() + 1]
        assert box.all(), "the erased pixels are one box"
        for c, v in enumerate((-1, -2, -3)):
            assert (o[c][changed[c]] == v).all()
        area = box.size / (32 * 24)
        assert 0.02 - 0.01 <= area <= 0.33 + 0.02
    assert erased > 4
    (noisy,) = [e["image"] for e in sluice.Dataset.from_tensors({"image": np.zeros((3, 64, 64), np.float32)})
                .enumerate().map(sluice.fn.random_erasing("image", probability=1, value="random", seed=1,
                                                           index="index"))]
    values = noisy[noisy != 0]
    assert values.size > 100 and abs(values.mean()) < 0.2 and abs(values.std() - 1) < 0.2
    with pytest.raises(ValueError, match="value must be a number"):
        sluice.fn.random_erasing(value="noise")
