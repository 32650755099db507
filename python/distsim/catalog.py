"""The built-in catalogs, each entry as `distsim list <what> --json` writes it."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from . import _distsim


def models() -> List[Dict[str, Any]]:
    """Every built-in model with all its fields."""
    return json.loads(_distsim.catalog_models())


def gpus() -> List[Dict[str, Any]]:
    """Every built-in GPU with all its fields."""
    return json.loads(_distsim.catalog_gpus())


def clusters() -> List[Dict[str, Any]]:
    """Every built-in node design (cluster) with its GPU inline."""
    return json.loads(_distsim.catalog_clusters())


def schedules() -> List[Dict[str, Any]]:
    """Every pipeline schedule: name and description."""
    return json.loads(_distsim.catalog_schedules())


def attention_kernels() -> List[Dict[str, Any]]:
    """Every value of attention_kernel: name, description and each measured rate with its source."""
    return json.loads(_distsim.catalog_attention_kernels())
