#!/usr/bin/env python3
"""Decodes every Chakra execution trace a `distsim simulate --chakra` run writes with protoc, and
checks what the files say against the Chakra schema's rules (mlcommons/chakra,
schema/protobuf/et_def.proto) and ASTRA-sim's reading of them:

  - each file is a GlobalMetadata and then Nodes, each preceded by its length (a varint), and every
    byte of it belongs to one of them;
  - node ids are unique in a file, and every data or control dependency names a node earlier in
    the file (so the graph is acyclic);
  - a COMP node says whether it runs on the CPU (ASTRA-sim takes a node without is_cpu_op for a CPU
    one); a collective names its type, size and group, and its group is in PREFIX.comm_groups.json
    with this rank among its members; a send or receive names its two ends and a tag, and the other
    end has the matching node with the same tag and size.

    decode_et_file.py DISTSIM PROTO_DIR      runs a 2M2P2D gpt2-345m job of every rank
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def read_varint(data: bytes, at: int):
    value, shift = 0, 0
    while True:
        if at >= len(data):
            raise AssertionError(f"a length runs past the end of the file at byte {at}")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
        shift += 7


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def as_et_file_message(data: bytes) -> bytes:
    """The delimited stream as one EtFile: field 1 (metadata) for the first message, field 2 for
    each node, each with wire type 2 (length-delimited), whose key is (field << 3) | 2."""
    out = bytearray()
    at, index = 0, 0
    while at < len(data):
        start = at
        length, at = read_varint(data, at)
        if at + length > len(data):
            raise AssertionError(f"a message of {length} bytes runs past the end of the file")
        out += bytes([(1 if index == 0 else 2) << 3 | 2]) + data[start:at + length]
        at += length
        index += 1
    return bytes(out)


def decode(proto_dir: str, path: str) -> str:
    with open(path, "rb") as f:
        payload = as_et_file_message(f.read())
    result = subprocess.run(["protoc", "--decode=distsim_test.EtFile", f"--proto_path={proto_dir}",
                             f"--proto_path={HERE}", os.path.join(HERE, "et_file.proto")],
                            input=payload, capture_output=True, check=False)
    if result.returncode != 0:
        raise AssertionError(f"protoc could not decode {path}: {result.stderr.decode()}")
    return result.stdout.decode()


def parse_nodes(text: str):
    """protoc's text format of an EtFile, as the metadata's version and a dict per node."""
    version = re.search(r'metadata \{\s*version: "([^"]*)"', text).group(1)
    nodes = []
    for block in re.findall(r"^node \{\n(.*?)^\}", text, flags=re.S | re.M):
        node = {"id": 0, "type": "INVALID_NODE", "data_deps": [], "ctrl_deps": [], "attr": {}}
        for key, value in re.findall(r"^  (\w+): (.*)$", block, flags=re.M):
            if key in ("data_deps", "ctrl_deps"):
                node[key].append(int(value))
            elif key in ("id", "start_time_micros", "duration_micros"):
                node[key] = int(value)
            else:
                node[key] = value.strip('"')
        for name, kind, value in re.findall(r'attr \{\n    name: "(\w+)"\n    (\w+): (.*)\n  \}', block):
            node["attr"][name] = value.strip('"') if kind == "string_val" else value
        nodes.append(node)
    return version, nodes


def check(distsim: str, proto_dir: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        prefix = os.path.join(scratch, "job")
        subprocess.run([distsim, "simulate", "--model", "gpt2-345m", "--gpu", "h100", "--nodes", "1", "--tp", "2",
                        "--pp", "2", "--dp", "2", "--micro-batch-size", "1", "--global-batch-size", "8",
                        "--chakra", prefix, "--trace-ranks", "all"], check=True, capture_output=True)
        with open(prefix + ".comm_groups.json") as f:
            groups = json.load(f)
        ends = {"COMM_SEND_NODE": {}, "COMM_RECV_NODE": {}}
        for rank in range(8):
            version, nodes = parse_nodes(decode(proto_dir, f"{prefix}.{rank}.et"))
            assert version == "0.0.4", version
            assert nodes, f"rank {rank}: no nodes"
            seen = set()
            for node in nodes:
                for dep in node["data_deps"] + node["ctrl_deps"]:
                    assert dep in seen, f"rank {rank}: node {node['id']} depends on {dep}, not before it"
                assert node["id"] not in seen, f"rank {rank}: node id {node['id']} twice"
                seen.add(node["id"])
                attrs = node["attr"]
                assert attrs.get("is_cpu_op") in ("true", "false"), node
                if node["type"] == "COMM_COLL_NODE":
                    assert rank in groups[attrs["pg_name"]], node
                    assert int(attrs["comm_size"]) > 0 and "comm_type" in attrs, node
                elif node["type"] in ends:
                    key = (int(attrs["comm_src"]), int(attrs["comm_dst"]), int(attrs["comm_tag"]))
                    assert rank in key[:2], node
                    assert key not in ends[node["type"]], node
                    ends[node["type"]][key] = int(attrs["comm_size"])
                else:
                    assert node["type"] == "COMP_NODE", node
        assert ends["COMM_SEND_NODE"] == ends["COMM_RECV_NODE"], "a send without its receive, or sizes apart"
        assert ends["COMM_SEND_NODE"], "no pipeline transfer in a two-stage job"
    print("decoded 8 rank files with protoc; every rule holds")


if __name__ == "__main__":
    check(sys.argv[1], sys.argv[2])
