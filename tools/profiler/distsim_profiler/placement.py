"""Where processes sit and where an event's group runs. Torch-free, so it can be unit-tested."""


class Placement:
    """This process's rank, the world, and the ranks that share its node."""

    def __init__(self, rank, world_size, local_rank, local_world_size):
        self.rank = rank
        self.world_size = world_size
        self.local_rank = local_rank
        self.local_world_size = local_world_size

    @property
    def nodes(self):
        return self.world_size // self.local_world_size


def group_members(spec, placement):
    """(global ranks, None) for an event's group, or (None, reason) when this launch cannot place
    it: the group is larger than the processes, or it must span nodes that are not here.
    Intra-node groups use the first ranks of node 0; an inter-node group uses `per_node` ranks
    of each of ceil(group / per_node) nodes, as distsim's rank layout places them."""
    size, per_node = spec.group, spec.per_node
    if spec.intra:
        if size > placement.local_world_size:
            return None, "needs %d ranks on one node (this launch has %d)" % (size, placement.local_world_size)
        return list(range(size)), None
    nodes = -(-size // per_node)
    if per_node > placement.local_world_size or nodes > placement.nodes or nodes < 2:
        return None, "needs %d ranks on %d nodes, %d per node (this launch has %d node(s) of %d)" % (
            size, max(nodes, 2), per_node, placement.nodes, placement.local_world_size)
    members = []
    for node in range(nodes):
        count = min(per_node, size - node * per_node)
        members += [node * placement.local_world_size + i for i in range(count)]
    return members, None


def unsupported_reason(spec, backend):
    if backend == "gloo" and spec.op == "reduce_scatter":
        return "gloo has no reduce_scatter in torch 1.13 (measure it on a GPU with nccl)"
    return None
