"""Process groups of a tp × pp × dp job and the tensor-parallel building blocks (Megatron-LM,
Shoeybi et al. 2019, §3): column-parallel linear layers whose input gradient is all-reduced in
backward (overlapped with the weight gradient, as Megatron's async all-reduce), row-parallel
linear layers whose output is all-reduced in forward."""

import torch
import torch.distributed as dist

from .jobspec import rank_of


class Groups:
    """Every group of the job, created on every rank in the same order (new_group requires it)."""

    def __init__(self, job, coord):
        self.tensor = self.data = self.embedding = None
        for pp in range(job.pp):
            for dp in range(job.dp):
                ranks = [rank_of(job, tp, dp, pp) for tp in range(job.tp)]
                group = dist.new_group(ranks)
                if (pp, dp) == (coord.pp, coord.dp):
                    self.tensor = group
        for pp in range(job.pp):
            for tp in range(job.tp):
                ranks = [rank_of(job, tp, dp, pp) for dp in range(job.dp)]
                group = dist.new_group(ranks)
                if (pp, tp) == (coord.pp, coord.tp):
                    self.data = group
        if job.pp > 1:
            for dp in range(job.dp):
                for tp in range(job.tp):
                    ranks = [rank_of(job, tp, dp, 0), rank_of(job, tp, dp, job.pp - 1)]
                    group = dist.new_group(ranks)
                    if (dp, tp) == (coord.dp, coord.tp) and coord.pp in (0, job.pp - 1):
                        self.embedding = group


class Communicator:
    """All-reduces that record themselves on the timeline. Gloo cannot sum bf16, so bf16 tensors
    travel as fp16 (the same bytes; the conversions are counted in the communication's time)."""

    def __init__(self, recorder, backend):
        self.recorder = recorder
        self.needs_surrogate = backend == "gloo"

    def _wire(self, tensor):
        return tensor.to(torch.float16) if self.needs_surrogate and tensor.dtype == torch.bfloat16 else tensor

    def all_reduce(self, tensor, group, kind, name, op=dist.ReduceOp.SUM, phase=None, microbatch=None):
        def reduce():
            wire = self._wire(tensor)
            dist.all_reduce(wire, op=op, group=group)
            if wire is not tensor:
                tensor.copy_(wire)

        extra = {"bytes": tensor.numel() * tensor.element_size(), "group": dist.get_world_size(group)}
        self.recorder.blocking(kind, name, reduce, phase, microbatch, extra)
        return tensor

    def all_reduce_async(self, tensor, group, kind, name):
        """Starts an all-reduce; returns the function that waits for it."""
        extra = {"bytes": tensor.numel() * tensor.element_size(), "group": dist.get_world_size(group)}
        token = self.recorder.started(kind, name, extra=extra)
        wire = self._wire(tensor)
        handle = dist.all_reduce(wire, group=group, async_op=True)

        def wait():
            handle.wait()
            if wire is not tensor:
                tensor.copy_(wire)

        return lambda: self.recorder.finish(token, wait)


class ParallelContext:
    def __init__(self, job, coord, groups, communicator):
        self.job = job
        self.coord = coord
        self.groups = groups
        self.comm = communicator

    @property
    def tp(self):
        return self.job.tp


class ColumnParallelLinear(torch.autograd.Function):
    """y = x W + b with W split by output columns: no communication in forward; in backward the
    input gradient is all-reduced across the tensor group while the weight gradient is computed."""

    @staticmethod
    def forward(ctx, x, weight, bias, parallel):
        ctx.save_for_backward(x, weight)
        ctx.parallel = parallel
        ctx.has_bias = bias is not None
        out = torch.matmul(x, weight)
        return out + bias if bias is not None else out

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        parallel = ctx.parallel
        grad_out = grad_out.contiguous()
        grad_x = torch.matmul(grad_out, weight.t())
        wait = None
        if parallel.tp > 1:
            wait = parallel.comm.all_reduce_async(grad_x, parallel.groups.tensor, "tp_comm", "tp all_reduce")
        grad_weight = torch.matmul(x.t(), grad_out)
        grad_bias = grad_out.sum(dim=0) if ctx.has_bias else None
        if wait is not None:
            wait()
        return grad_x, grad_weight, grad_bias, None


class RowParallelLinear(torch.autograd.Function):
    """y = all_reduce(x W) with W split by input rows (the bias is added after, in
    bias_dropout_add); backward needs no communication."""

    @staticmethod
    def forward(ctx, x, weight, parallel):
        ctx.save_for_backward(x, weight)
        out = torch.matmul(x, weight)
        if parallel.tp > 1:
            parallel.comm.all_reduce(out, parallel.groups.tensor, "tp_comm", "tp all_reduce")
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        grad_out = grad_out.contiguous()
        return torch.matmul(grad_out, weight.t()), torch.matmul(x.t(), grad_out), None


class ReduceFromTensorGroup(torch.autograd.Function):
    """All-reduce in forward, identity in backward (Megatron's g): the vocab-parallel embedding."""

    @staticmethod
    def forward(ctx, x, parallel):
        if parallel.tp > 1:
            parallel.comm.all_reduce(x, parallel.groups.tensor, "tp_comm", "tp all_reduce")
            ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad_out):
        return grad_out, None


class VocabParallelCrossEntropy(torch.autograd.Function):
    """Cross-entropy over logits split by vocabulary (Megatron's _VocabParallelCrossEntropy):
    three fp32 all-reduces over the tokens (max, target logit, sum of exponentials)."""

    @staticmethod
    def forward(ctx, logits, targets, vocab_start, parallel):
        ctx.logits_dtype = logits.dtype
        logits = logits.float()
        group = parallel.groups.tensor
        comm = parallel.comm
        logits_max = logits.max(dim=-1)[0]
        comm.all_reduce(logits_max, group, "tp_comm", "tp all_reduce", op=dist.ReduceOp.MAX)
        shifted = logits - logits_max.unsqueeze(-1)
        local = targets - vocab_start
        outside = (local < 0) | (local >= logits.shape[-1])
        local = local.masked_fill(outside, 0)
        target_logit = shifted.gather(-1, local.unsqueeze(-1)).squeeze(-1).masked_fill(outside, 0.0)
        comm.all_reduce(target_logit, group, "tp_comm", "tp all_reduce")
        exp = shifted.exp()
        sum_exp = exp.sum(dim=-1)
        comm.all_reduce(sum_exp, group, "tp_comm", "tp all_reduce")
        loss = sum_exp.log() - target_logit
        ctx.save_for_backward(exp.div_(sum_exp.unsqueeze(-1)), local, outside)
        return loss.mean()

    @staticmethod
    def backward(ctx, grad_loss):
        softmax, local, outside = ctx.saved_tensors
        grad = softmax
        rows = torch.arange(grad.shape[0], device=grad.device)
        grad[rows, local] -= (~outside).float()
        grad.mul_(grad_loss / grad.shape[0])
        return grad.to(ctx.logits_dtype), None, None, None
