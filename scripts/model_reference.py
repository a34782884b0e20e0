#!/usr/bin/env python3
"""Reference forward pass of a phs model directory, in NumPy or PyTorch.

Reads a model directory as package model saves it (config.json and
weights.safetensors, parsed by hand: no safetensors package needed), runs
the network on encoded states and prints, for each state, the log-policy
and the heuristic h. The file format and the two architectures (conv and
resnet) are described in docs/MODEL_FORMAT.md.

    scripts/model_reference.py lab/witness-levints/model model/testdata/witness-inputs.npy
    scripts/model_reference.py --torch --json lab/witness-phsh/model x.f32
    scripts/model_reference.py --json cm/testdata/table-compact.safetensors cm/testdata/table-contexts.json

The input is a .npy file of float32 (or any real dtype), of shape
[N, C, H, W] or [C, H, W], or any other file read as raw little-endian
float32 values, N·C·H·W of them, in that order. C, H and W are the model's
channels, height and width.

A file, not a directory, is a context model's table (package cm: the
format of table.safetensors, beta F64 or F32, or the compact form,
beta_q U8 or U16; compressed with gzip if its name ends in .gz); the
input is then a JSON list of states, each the list of its M context
codes, and the script prints the table's number of rows and the
log-policy of each state (mix 0).

Needs NumPy; --torch needs PyTorch too.
"""

import argparse
import gzip
import hashlib
import json
import os
import struct
import sys

import numpy as np

DEFAULTS = {"conv": {"filters": 32, "kernel": 2, "hidden": 128},
            "resnet": {"units": 128, "blocks": 2, "hidden": 128}}


DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "I64": "<i8", "U64": "<u8", "I32": "<i4", "U16": "<u2", "U8": "u1"}


def read_safetensors(path, sha256=None):
    """Returns ({name: array of its dtype in its stored shape}, metadata) of
    a safetensors file: an 8-byte little-endian header length, a JSON
    header, then the tensors' little-endian data. The tensors must have
    the SHA-256 sha256 if given, else the one of the metadata "sha256" if
    any (tensors_sha256). A path ending in .gz is of a file compressed
    with gzip, as phs writes a learner's table."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        b = f.read()
    (n,) = struct.unpack("<Q", b[:8])
    header = json.loads(b[8 : 8 + n])
    data = b[8 + n :]
    meta = header.pop("__metadata__", {})
    want = sha256 or meta.get("sha256")
    if want is not None and tensors_sha256(header, data) != want:
        raise ValueError(f"{path}: the tensors' SHA-256 is {tensors_sha256(header, data)}, not the {want} recorded: the file is corrupt or was changed")
    tensors = {}
    for name, h in header.items():
        dtype = np.dtype(DTYPES[h["dtype"]])
        lo, hi = h["data_offsets"]
        count = int(np.prod(h["shape"], dtype=np.int64))
        if hi - lo != dtype.itemsize * count:
            raise ValueError(f"{path}: tensor {name}: offsets {lo}, {hi} do not fit shape {h['shape']}")
        a = np.frombuffer(data, dtype=dtype, count=count, offset=lo)
        tensors[name] = a.reshape(h["shape"]).astype(dtype.newbyteorder("="))
    return tensors, meta


def tensors_sha256(header, data):
    """Returns the SHA-256 that phs records of the tensors of a safetensors
    file, in hexadecimal: that of the data of each tensor (its bytes in the
    file), end to end, in the order of the tensors' names (byte order)."""
    h = hashlib.sha256()
    for name in sorted(header, key=lambda s: s.encode()):
        lo, hi = header[name]["data_offsets"]
        h.update(data[lo:hi])
    return h.hexdigest()


def load_model(directory):
    """Returns (config, weights) of a model directory: config.json with the
    architecture ("conv" if absent) and the defaults of its sizes filled in,
    and the tensors of weights.safetensors, each checked against the shape
    the configuration gives it, and all against the SHA-256 of config.json's
    weights_sha256 (files written before phs recorded it have none). A
    convolution's weight in the legacy flattened shape [out, in*k*k] is
    reshaped to [out, in, k, k] (same values, same order)."""
    with open(os.path.join(directory, "config.json")) as f:
        cfg = json.load(f)
    cfg["arch"] = cfg.get("arch") or "conv"
    for k, v in DEFAULTS[cfg["arch"]].items():
        cfg[k] = cfg.get(k) or v
    if "weights_sha256" not in cfg:
        print(f"warning: {directory}/config.json records no weights_sha256: the weights are not checked", file=sys.stderr)
    weights, _ = read_safetensors(os.path.join(directory, "weights.safetensors"), cfg.get("weights_sha256"))
    C, H, W = cfg["channels"], cfg["height"], cfg["width"]
    D, A = cfg["hidden"], cfg["actions"]
    if cfg["arch"] == "resnet":
        U = flat = cfg["units"]
        shapes = {"input.weight": (U, C * H * W), "input.bias": (U,)}
        for b in range(cfg["blocks"]):
            for fc in ("fc1", "fc2"):
                shapes.update({f"blocks.{b}.{fc}.weight": (U, U), f"blocks.{b}.{fc}.bias": (U,)})
    else:
        F, K = cfg["filters"], cfg["kernel"]
        flat = F * (H - 2 * (K - 1)) * (W - 2 * (K - 1))
        shapes = {
            "conv1.weight": (F, C, K, K), "conv1.bias": (F,),
            "conv2.weight": (F, F, K, K), "conv2.bias": (F,),
        }
    if cfg["heads"] in ("policy", "both"):
        shapes.update({"policy1.weight": (D, flat), "policy1.bias": (D,),
                       "policy2.weight": (A, D), "policy2.bias": (A,)})
    if cfg["heads"] in ("heuristic", "both"):
        shapes.update({"heuristic1.weight": (D, flat), "heuristic1.bias": (D,),
                       "heuristic2.weight": (1, D), "heuristic2.bias": (1,)})
    out = {}
    for name, shape in shapes.items():
        t = weights[name]
        if t.dtype == np.float16:  # model.SaveF16's: exactly representable
            t = t.astype(np.float32)
        if t.dtype != np.float32:
            raise ValueError(f"{directory}: tensor {name} is {t.dtype}, want float32 or float16")
        if t.shape != shape and len(shape) == 4 and t.shape == (shape[0], int(np.prod(shape[1:]))):
            t = t.reshape(shape)  # the legacy layout
        if t.shape != shape:
            raise ValueError(f"{directory}: tensor {name} has shape {t.shape}, want {shape}")
        out[name] = t
    return cfg, out


def conv2d_relu(x, w, b):
    """ReLU of the valid, stride-1 cross-correlation of x [N, C, H, W] by w
    [O, C, K, K], plus b [O]: PyTorch's conv2d."""
    K = w.shape[2]
    win = np.lib.stride_tricks.sliding_window_view(x, (K, K), axis=(2, 3))  # N, C, H', W', K, K
    y = np.einsum("ncijkl,ockl->noij", win, w, dtype=np.float32) + b[None, :, None, None]
    return np.maximum(y, 0)


def forward_numpy(cfg, wts, x):
    """Returns (log_policy [N, A] or None, h [N] or None) for x [N, C, H, W]."""
    if cfg["arch"] == "resnet":
        relu = lambda v: np.maximum(v, 0)  # noqa: E731
        flat = relu(x.reshape(x.shape[0], -1) @ wts["input.weight"].T + wts["input.bias"])
        for b in range(cfg["blocks"]):
            p = f"blocks.{b}."
            r = relu(flat @ wts[p + "fc1.weight"].T + wts[p + "fc1.bias"])
            flat = relu(flat + r @ wts[p + "fc2.weight"].T + wts[p + "fc2.bias"])
    else:
        a = conv2d_relu(x, wts["conv1.weight"], wts["conv1.bias"])
        a = conv2d_relu(a, wts["conv2.weight"], wts["conv2.bias"])
        flat = a.reshape(a.shape[0], -1)  # per sample: channel, then row, then column
    log_pi = h = None
    if "policy1.weight" in wts:
        z = np.maximum(flat @ wts["policy1.weight"].T + wts["policy1.bias"], 0)
        z = z @ wts["policy2.weight"].T + wts["policy2.bias"]
        # log-softmax: z − (m + log Σ exp(z − m)), m the row's maximum.
        m = z.max(axis=1, keepdims=True)
        lse = m + np.log(np.exp((z - m).astype(np.float64)).sum(axis=1, keepdims=True)).astype(np.float32)
        log_pi = z - lse
    if "heuristic1.weight" in wts:
        z = np.maximum(flat @ wts["heuristic1.weight"].T + wts["heuristic1.bias"], 0)
        h = (z @ wts["heuristic2.weight"].T + wts["heuristic2.bias"])[:, 0]
    return log_pi, h


def forward_torch(cfg, wts, x):
    """forward_numpy with PyTorch modules, whose state_dict the file's
    tensors fill as they are (load_state_dict with strict=True)."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, U):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(U, U), nn.Linear(U, U)

        def forward(self, h):
            return torch.relu(h + self.fc2(torch.relu(self.fc1(h))))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            C, H, W, D = cfg["channels"], cfg["height"], cfg["width"], cfg["hidden"]
            self.resnet = cfg["arch"] == "resnet"
            if self.resnet:
                flat = cfg["units"]
                self.input = nn.Linear(C * H * W, flat)
                self.blocks = nn.ModuleList(Block(flat) for _ in range(cfg["blocks"]))
            else:
                F, K = cfg["filters"], cfg["kernel"]
                flat = F * (H - 2 * (K - 1)) * (W - 2 * (K - 1))
                self.conv1 = nn.Conv2d(C, F, K)
                self.conv2 = nn.Conv2d(F, F, K)
            self.has_policy = "policy1.weight" in wts
            self.has_heuristic = "heuristic1.weight" in wts
            if self.has_policy:
                self.policy1 = nn.Linear(flat, D)
                self.policy2 = nn.Linear(D, cfg["actions"])
            if self.has_heuristic:
                self.heuristic1 = nn.Linear(flat, D)
                self.heuristic2 = nn.Linear(D, 1)

        def forward(self, x):
            if self.resnet:
                flat = torch.relu(self.input(torch.flatten(x, 1)))
                for block in self.blocks:
                    flat = block(flat)
            else:
                flat = torch.flatten(torch.relu(self.conv2(torch.relu(self.conv1(x)))), 1)
            log_pi = h = None
            if self.has_policy:
                log_pi = torch.log_softmax(self.policy2(torch.relu(self.policy1(flat))), dim=1)
            if self.has_heuristic:
                h = self.heuristic2(torch.relu(self.heuristic1(flat)))[:, 0]
            return log_pi, h

    net = Net()
    net.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in wts.items()}, strict=True)
    with torch.no_grad():
        log_pi, h = net(torch.from_numpy(x))
    return (None if log_pi is None else log_pi.numpy(), None if h is None else h.numpy())


def load_table(path):
    """Returns (layout, {(set, code): beta float64 [A]}) of a context model's
    table file, "phs-cm/1" (beta, set, code) or "phs-cm-compact/1", its
    tensors checked against the SHA-256 of its metadata "sha256"."""
    t, meta = read_safetensors(path)
    if "sha256" not in meta:
        print(f"warning: {path} records no sha256: its tensors are not checked", file=sys.stderr)
    layout = json.loads(meta["layout"])
    A = layout["actions"]
    if meta["format"] == "phs-cm/1":
        beta, sets, codes = t["beta"].astype(np.float64), t["set"].tolist(), t["code"].tolist()
    elif meta["format"] == "phs-cm-compact/1":
        counts, delta = t["set_rows"], t["code_delta"].tobytes()
        sets = np.repeat(np.arange(len(counts)), counts)
        codes, pos = [], 0
        for s, n in enumerate(counts):
            code = 0
            for _ in range(n):  # unsigned LEB128, the first code of a set from 0
                d, shift = 0, 0
                while True:
                    b = delta[pos]
                    pos += 1
                    d |= (b & 0x7F) << shift
                    shift += 7
                    if b < 0x80:
                        break
                code += d
                codes.append(code)
        scale = t["beta_scale"].astype(np.float64)[sets][:, None]
        beta = np.maximum(-t["beta_q"].astype(np.float64) * scale, np.log(float(meta["eps_low"])))
        beta[t["beta_q"] == 0] = 0
        sets = sets.tolist()
    else:
        raise ValueError(f"{path}: format {meta['format']!r}")
    return layout, {(s, c): beta[r].reshape(A) for r, (s, c) in enumerate(zip(sets, codes))}


def table_log_policy(layout, rows, codes):
    """Returns the log-policy of a state of context codes codes: the
    log-softmax of the sum of the rows of its known contexts, uniform if
    none is known."""
    z = np.zeros(layout["actions"])
    known = [rows[(s, c)] for s, c in enumerate(codes) if (s, c) in rows]
    if not known:
        return z - np.log(layout["actions"])
    for b in known:
        z = z + b
    m = z.max()
    return z - (m + np.log(np.exp(z - m).sum()))


def read_input(path, cfg):
    """Returns the states of path as a float32 array [N, C, H, W]."""
    shape = (cfg["channels"], cfg["height"], cfg["width"])
    if path.endswith(".npy"):
        x = np.load(path).astype(np.float32)
    else:
        x = np.fromfile(path, dtype="<f4").astype(np.float32)
        size = int(np.prod(shape))
        if x.size % size:
            raise ValueError(f"{path}: {x.size} values, not a multiple of {size} ({shape})")
    if x.ndim == 3:
        x = x[None]
    x = x.reshape((-1,) + shape)
    return np.ascontiguousarray(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="model directory (config.json, weights.safetensors), or a context model's table file")
    ap.add_argument("input", help=".npy [N, C, H, W] or raw little-endian float32 file; for a table, JSON [[code, ...], ...]")
    ap.add_argument("--torch", action="store_true", help="run the network with PyTorch, not NumPy")
    ap.add_argument("--json", action="store_true", help='print {"log_policy": [[...], ...], "h": [...]} (null for a missing head)')
    args = ap.parse_args()
    if os.path.isfile(args.model):
        layout, rows = load_table(args.model)
        with open(args.input) as f:
            log_pi = [table_log_policy(layout, rows, codes).tolist() for codes in json.load(f)]
        if args.json:
            json.dump({"rows": len(rows), "log_policy": log_pi}, sys.stdout)
            print()
            return
        print(f"{len(rows)} rows")
        for i, lp in enumerate(log_pi):
            print(f"{i}: log_pi " + " ".join(f"{v:.6g}" for v in lp))
        return
    cfg, wts = load_model(args.model)
    x = read_input(args.input, cfg)
    if args.torch:
        import torch

        torch.set_num_threads(1)
        log_pi, h = forward_torch(cfg, wts, x)
    else:
        log_pi, h = forward_numpy(cfg, wts, x)
    if args.json:
        out = {"log_policy": None if log_pi is None else log_pi.tolist(),
               "h": None if h is None else h.tolist()}
        json.dump(out, sys.stdout)
        print()
        return
    for i in range(x.shape[0]):
        parts = [f"{i}:"]
        if log_pi is not None:
            parts.append("log_pi " + " ".join(f"{v:.6g}" for v in log_pi[i]))
        if h is not None:
            parts.append(f"h {h[i]:.6g}")
        print("  ".join(parts))


if __name__ == "__main__":
    main()
