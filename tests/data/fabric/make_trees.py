#!/usr/bin/env python3
"""Writes the recorded sysfs/procfs trees of tests/data/fabric/ (see README.md there).

Run from the repository root: python3 tests/data/fabric/make_trees.py
The trees are committed; this script documents how they were written and re-creates them.
Layout and value formats: Documentation/ABI/stable/sysfs-class-infiniband and
drivers/infiniband/core/sysfs.c (Linux 6.x); PCI: Documentation/ABI/testing/sysfs-bus-pci.
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

STATES = {"DOWN": 1, "INIT": 2, "ARMED": 3, "ACTIVE": 4}
PHYS = {"Sleep": 1, "Polling": 2, "Disabled": 3, "LinkUp": 5, "LinkErrorRecovery": 6}
COUNTERS = ["symbol_error", "link_downed", "port_rcv_errors", "port_rcv_remote_physical_errors",
            "port_rcv_switch_relay_errors", "link_error_recovery", "port_xmit_constraint_errors",
            "port_rcv_constraint_errors", "local_link_integrity_errors", "excessive_buffer_overrun_errors",
            "port_xmit_discards", "VL15_dropped", "port_xmit_wait", "port_xmit_data", "port_rcv_data",
            "port_xmit_packets", "port_rcv_packets"]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def link(path, target):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


def pci_device(root, chain, vendor, device, pci_class, numa):
    """chain: ["pci0000:16", "0000:16:02.0", ..., bdf]; writes the endpoint's attributes and its
    /sys/bus/pci/devices link, returns the endpoint's directory."""
    d = os.path.join(root, "sys", "devices", *chain)
    write(os.path.join(d, "vendor"), vendor + "\n")
    write(os.path.join(d, "device"), device + "\n")
    write(os.path.join(d, "class"), pci_class + "\n")
    write(os.path.join(d, "numa_node"), f"{numa}\n")
    bdf = chain[-1]
    link(os.path.join(root, "sys", "bus", "pci", "devices", bdf), "../../../devices/" + "/".join(chain))
    return d


def hca(root, name, chain, numa, fw, hca_type, board_id, guid, ports, ib=True):
    d = pci_device(root, chain, "0x15b3", "0x1021", "0x020700" if ib else "0x020000", numa)
    ibdir = os.path.join(d, "infiniband", name)
    write(os.path.join(ibdir, "fw_ver"), fw + "\n")
    write(os.path.join(ibdir, "hca_type"), hca_type + "\n")
    write(os.path.join(ibdir, "board_id"), board_id + "\n")
    write(os.path.join(ibdir, "node_guid"), guid + "\n")
    write(os.path.join(ibdir, "node_type"), "1: CA\n")
    link(os.path.join(ibdir, "device"), "../../../" + chain[-1])
    link(os.path.join(root, "sys", "class", "infiniband", name), "../../devices/" + "/".join(chain) + "/infiniband/" + name)
    for number, p in ports.items():
        pd = os.path.join(ibdir, "ports", str(number))
        write(os.path.join(pd, "state"), f"{STATES[p['state']]}: {p['state']}\n")
        write(os.path.join(pd, "phys_state"), f"{PHYS[p['phys']]}: {p['phys']}\n")
        write(os.path.join(pd, "rate"), p["rate"] + "\n")
        write(os.path.join(pd, "link_layer"), p.get("link_layer", "InfiniBand") + "\n")
        write(os.path.join(pd, "lid"), p.get("lid", "0x0") + "\n")
        write(os.path.join(pd, "sm_lid"), "0x1\n" if ib else "0x0\n")
        write(os.path.join(pd, "cap_mask"), "0xa751e848\n" if ib else "0x04010000\n")
        counters = p.get("counters", {})
        for c in COUNTERS:
            write(os.path.join(pd, "counters", c), f"{counters.get(c, 0)}\n")


def gpu(root, chain, numa):
    pci_device(root, chain, "0x10de", "0x2330", "0x030200", numa)


def host(root, kernel, nvidia_version, peermem):
    write(os.path.join(root, "proc", "sys", "kernel", "osrelease"), kernel + "\n")
    if nvidia_version:
        write(os.path.join(root, "proc", "driver", "nvidia", "version"), nvidia_version + "\n")
    if peermem:
        # A loaded module has /sys/module/<name>/initstate = live (Documentation/ABI/stable/sysfs-module).
        write(os.path.join(root, "sys", "module", "nvidia_peermem", "initstate"), "live\n")
    write(os.path.join(root, "sys", "module", "ib_core", "initstate"), "live\n")
    write(os.path.join(root, "sys", "class", "net", "lo", "address"), "00:00:00:00:00:00\n")


OPEN = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.20  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Tue Mar 25 22:33:19 UTC 2025")
PROPRIETARY = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024")

NDR = {"state": "ACTIVE", "phys": "LinkUp", "rate": "400 Gb/sec (4X NDR)", "lid": "0x2a"}


def h100_ndr(root):
    """An H100 SXM node with ConnectX-7 NDR compute HCAs behind the GPUs' PCIe switches (the
    DGX H100 / HGX layout, trimmed to two GPU+HCA pairs) and one ConnectX-7 in Ethernet mode
    (RoCE, storage network) on its own root port."""
    host(root, "6.8.0-45-generic", OPEN, peermem=True)
    gpu(root, ["pci0000:16", "0000:16:02.0", "0000:17:00.0", "0000:18:00.0", "0000:19:00.0"], 0)
    hca(root, "mlx5_0", ["pci0000:16", "0000:16:02.0", "0000:17:00.0", "0000:18:01.0", "0000:1a:00.0"], 0,
        "28.39.1002", "MT4129", "MT_0000000838", "946d:ae03:00a1:b2c4",
        {1: dict(NDR, counters={"symbol_error": 3, "port_xmit_data": 981234567, "port_rcv_data": 876543210})})
    gpu(root, ["pci0000:b8", "0000:b8:02.0", "0000:b9:00.0", "0000:ba:00.0", "0000:bb:00.0"], 1)
    hca(root, "mlx5_1", ["pci0000:b8", "0000:b8:02.0", "0000:b9:00.0", "0000:ba:01.0", "0000:bc:00.0"], 1,
        "28.39.1002", "MT4129", "MT_0000000838", "946d:ae03:00a1:b2d8",
        {1: dict(NDR, lid="0x2b", counters={"port_xmit_data": 123456789, "port_rcv_data": 234567890})})
    hca(root, "mlx5_2", ["pci0000:30", "0000:30:02.0", "0000:31:00.0"], 0,
        "28.39.1002", "MT4129", "MT_0000000838", "946d:ae03:00a1:c100",
        {1: {"state": "ACTIVE", "phys": "LinkUp", "rate": "200 Gb/sec (4X HDR)", "link_layer": "Ethernet"}}, ib=False)


def a100_hdr_degraded(root):
    """An A100 node with ConnectX-6 HDR HCAs in a bad state: mlx5_1 trained at half width
    (2X), mlx5_2 port 1 down (Polling: no cable or no peer), mlx5_1 on older firmware than its
    siblings, the proprietary kernel module on Linux 5.15 without nvidia_peermem (no GPUDirect
    RDMA path), and link_downed already counting on mlx5_0."""
    host(root, "5.15.0-119-generic", PROPRIETARY, peermem=False)
    hdr = {"state": "ACTIVE", "phys": "LinkUp", "rate": "200 Gb/sec (4X HDR)", "lid": "0x11"}
    gpu(root, ["pci0000:00", "0000:00:01.1", "0000:07:00.0"], 0)
    hca(root, "mlx5_0", ["pci0000:00", "0000:00:03.1", "0000:0c:00.0"], 0,
        "20.39.1002", "MT4123", "MT_0000000223", "b859:9f03:00d5:1a10",
        {1: dict(hdr, counters={"link_downed": 2, "symbol_error": 41})})
    gpu(root, ["pci0000:80", "0000:80:01.1", "0000:87:00.0"], 1)
    hca(root, "mlx5_1", ["pci0000:40", "0000:40:03.1", "0000:4c:00.0"], 0,
        "20.35.1012", "MT4123", "MT_0000000223", "b859:9f03:00d5:1a20",
        {1: dict(hdr, rate="100 Gb/sec (2X HDR)", lid="0x12")})
    hca(root, "mlx5_2", ["pci0000:c0", "0000:c0:03.1", "0000:cc:00.0"], 1,
        "20.39.1002", "MT4123", "MT_0000000223", "b859:9f03:00d5:1a30",
        {1: {"state": "DOWN", "phys": "Polling", "rate": "10 Gb/sec (4X SDR)"}})


def no_hca(root):
    """A GPU node without any RDMA adapter: ib_core is not loaded, so there is no
    /sys/class/infiniband at all (the kernel creates the class when ib_core registers it)."""
    write(os.path.join(root, "proc", "sys", "kernel", "osrelease"), "6.1.0-26-amd64\n")
    write(os.path.join(root, "sys", "class", "net", "lo", "address"), "00:00:00:00:00:00\n")
    gpu(root, ["pci0000:00", "0000:00:01.1", "0000:01:00.0"], 0)


def first(path):
    with open(path) as f:
        return f.read().strip()


def write_ibstat(root):
    """ibstat.txt: what `ibstat` (infiniband-diags) prints for the tree, for a reader who knows
    ibstat better than sysfs: State capitalised, Rate as the number, lids in decimal."""
    cls = os.path.join(root, "sys", "class", "infiniband")
    if not os.path.isdir(cls):
        return
    out = []
    for hca in sorted(os.listdir(cls)):
        d = os.path.join(cls, hca)
        ports = sorted(os.listdir(os.path.join(d, "ports")), key=int)
        guid = "0x" + first(os.path.join(d, "node_guid")).replace(":", "")
        out += [f"CA '{hca}'", f"\tCA type: {first(os.path.join(d, 'hca_type'))}", f"\tNumber of ports: {len(ports)}",
                f"\tFirmware version: {first(os.path.join(d, 'fw_ver'))}", "\tHardware version: 0",
                f"\tNode GUID: {guid}", f"\tSystem image GUID: {guid}"]
        for p in ports:
            pd = os.path.join(d, "ports", p)
            out += [f"\tPort {p}:",
                    f"\t\tState: {first(os.path.join(pd, 'state')).split(': ')[1].capitalize()}",
                    f"\t\tPhysical state: {first(os.path.join(pd, 'phys_state')).split(': ')[1]}",
                    f"\t\tRate: {first(os.path.join(pd, 'rate')).split(' ')[0]}",
                    f"\t\tBase lid: {int(first(os.path.join(pd, 'lid')), 16)}", "\t\tLMC: 0",
                    f"\t\tSM lid: {int(first(os.path.join(pd, 'sm_lid')), 16)}",
                    f"\t\tCapability mask: {first(os.path.join(pd, 'cap_mask'))}",
                    f"\t\tPort GUID: {guid}", f"\t\tLink layer: {first(os.path.join(pd, 'link_layer'))}"]
    write(os.path.join(root, "ibstat.txt"), "\n".join(out) + "\n")


def main():
    for name, fn in [("h100-ndr", h100_ndr), ("a100-hdr-degraded", a100_hdr_degraded), ("no-hca", no_hca)]:
        root = os.path.join(HERE, name)
        shutil.rmtree(root, ignore_errors=True)
        fn(root)
        # No ib_core → no class directory; remove the ib_core marker written by host().
        if name == "no-hca":
            shutil.rmtree(os.path.join(root, "sys", "module"), ignore_errors=True)
        write_ibstat(root)


if __name__ == "__main__":
    main()
