"""The baseline reader's network (PyTorch; imported only for training and export, never at inference).

A small plain CNN in the spirit of HueManity's ResNet-50 baseline (§4: "two independent classification heads.
Each head was designed to predict one character"), trained from scratch because no pretrained weights may be
downloaded here. Input: (N, 3, S, S) float32 from :mod:`plates.reader.preprocess`, S one of
:data:`~plates.reader.preprocess.INPUT_SIZES` (64: the default recipe since 2026-11-26; 96: the weights before).
Output: (N, N_POSITIONS, N_CLASSES) logits, one row per character position over
:data:`plates.reader.coding.CLASSES`.
"""

from __future__ import annotations

import torch
from torch import nn

from plates.reader.coding import N_CLASSES, N_POSITIONS
from plates.reader.preprocess import INPUT_SIZE, INPUT_SIZES

#: Input size -> (kernel, stride) of the average pool that turns the last feature map (S / 16 square) into the
#: (2 rows x 3 columns) grid the head reads: exactly torch's adaptive pooling to (2, 3), as a plain AvgPool so
#: the ONNX graph stays one AveragePool (96: 6 x 6 in 3 x 2 cells; 64: 4 x 4 in 2 x 2 cells, columns overlapping).
GRID_POOL = {96: ((3, 2), (3, 2)), 64: ((2, 2), (2, 1))}
assert set(GRID_POOL) == set(INPUT_SIZES)


def _block(c_in: int, c_out: int, pool: bool) -> nn.Sequential:
    layers: list[nn.Module] = [
        nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    ]
    if pool:
        layers.append(nn.MaxPool2d(2))
    return nn.Sequential(*layers)


class PlateReader(nn.Module):
    """Conv stem (stride 2) + four 3x3 conv blocks -> a (2 x 3) spatial grid -> one linear head per position.

    The grid keeps the left-right layout (which character is first) that global pooling would lose.
    Shapes for S = 96: (N,3,96,96) -> stem (N,w,48,48) -> (N,1.5w,24,24) -> (N,2w,12,12) -> (N,4w,6,6)
    -> (N,4w,6,6) -> pool (N,4w,2,3) -> hidden (N,256) -> logits (N,2,59). For S = 64 the maps are 32, 16, 8, 4,
    4 px and the same (2 x 3) grid follows, so the weights' shapes do not depend on S (a 96 px network can be
    fine-tuned at 64 px).

    Parameters
    ----------
    width : int, optional
        The stem's channels w (>= 4).
    hidden : int, optional
        The hidden layer's units.
    dropout : float, optional
        Dropout before the heads.
    input_size : int, optional
        The input side S, px.

    Raises
    ------
    ValueError
        For a width under 4 or an input size the grid does not support.
    """

    def __init__(self, width: int = 32, hidden: int = 256, dropout: float = 0.2, input_size: int = INPUT_SIZE) -> None:
        super().__init__()
        if width < 4:
            raise ValueError(f"width {width} is too small; allowed: >= 4")
        if input_size not in GRID_POOL:
            raise ValueError(f"input size {input_size!r} px is not supported; allowed: "
                             f"{', '.join(map(str, INPUT_SIZES))}")
        self.input_size = input_size
        kernel, stride = GRID_POOL[input_size]
        w = width
        self.features = nn.Sequential(
            nn.Conv2d(3, w, 5, stride=2, padding=2, bias=False),
            nn.BatchNorm2d(w),
            nn.ReLU(inplace=True),
            _block(w, w * 3 // 2, pool=True),
            _block(w * 3 // 2, 2 * w, pool=True),
            _block(2 * w, 4 * w, pool=True),
            _block(4 * w, 4 * w, pool=False),
            nn.AvgPool2d(kernel_size=kernel, stride=stride),
        )
        self.hidden = nn.Sequential(
            nn.Flatten(), nn.Dropout(dropout), nn.Linear(4 * w * 6, hidden), nn.ReLU(inplace=True)
        )
        self.head = nn.Linear(hidden, N_POSITIONS * N_CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits of the two positions' classes.

        Parameters
        ----------
        x : torch.Tensor, shape (N, 3, S, S)
            Preprocessed plates, float32.

        Returns
        -------
        torch.Tensor, shape (N, 2, 59)
            Logits per position and class.
        """
        h = self.hidden(self.features(x))
        return self.head(h).view(-1, N_POSITIONS, N_CLASSES)
