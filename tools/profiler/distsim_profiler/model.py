"""One pipeline stage of a GPT split by tensor parallelism: the stage's share of the embedding,
transformer layers and LM head, as Megatron-LM partitions them (distsim models the same split
in src/events/job_events.cpp)."""

import torch

from . import kernels
from .jobspec import padded_vocab, stage_layers
from .parallel import ColumnParallelLinear, ReduceFromTensorGroup, RowParallelLinear, VocabParallelCrossEntropy

INIT_STD = 0.02  # GPT-2's initializer range


class ParameterFactory:
    """Parameters drawn whole from a generator seeded by their name, then split for this tensor
    rank: every strategy trains the same model from the same start (the two copies of tied
    embeddings included), so losses can be compared across strategies."""

    def __init__(self, dtype, device, tp_rank, tp):
        self.dtype = dtype
        self.device = device
        self.tp_rank = tp_rank
        self.tp = tp
        self.parameters = []

    @staticmethod
    def _seed(name):
        return sum(ord(c) * 131 ** i for i, c in enumerate(name)) % (2 ** 31)

    def normal(self, name, shape, split_dim=None, flatten_from=None):
        """`shape` is the whole tensor's; `split_dim` the dimension tensor parallelism divides;
        dimensions from `flatten_from` on are merged into one after the split."""
        generator = torch.Generator().manual_seed(self._seed(name))
        values = torch.randn(*shape, generator=generator) * INIT_STD
        if split_dim is not None:
            values = values.chunk(self.tp, dim=split_dim)[self.tp_rank]
        if flatten_from is not None:
            values = values.flatten(flatten_from)
        return self._register(values)

    def constant(self, value, size):
        return self._register(torch.full((size,), float(value)))

    def _register(self, values):
        parameter = torch.nn.Parameter(values.contiguous().to(device=self.device, dtype=self.dtype))
        self.parameters.append(parameter)
        return parameter


class Layer:
    def __init__(self, factory, index, model, tp, dropout):
        h, heads, d, ffn = model.hidden_size, model.num_heads, model.head_dim, model.ffn_hidden_size
        local_heads = heads // tp
        prefix = "layer%d." % index
        self.local_heads = local_heads
        self.head_dim = d
        self.dropout = dropout
        self.norm1 = (factory.constant(1, h), factory.constant(0, h))
        # q, k and v columns grouped by head, so a rank's slice holds whole heads of each.
        self.qkv = (factory.normal(prefix + "qkv", (h, 3, heads, d), split_dim=2, flatten_from=1),
                    factory.constant(0, 3 * local_heads * d))
        self.proj = (factory.normal(prefix + "proj", (heads * d, h), split_dim=0), factory.constant(0, h))
        self.norm2 = (factory.constant(1, h), factory.constant(0, h))
        self.fc1 = (factory.normal(prefix + "fc1", (h, ffn), split_dim=1), factory.constant(0, ffn // tp))
        self.fc2 = (factory.normal(prefix + "fc2", (ffn, h), split_dim=0), factory.constant(0, h))

    def forward(self, x, batch, parallel):
        """x: [batch·seq, hidden] → same shape (pre-LayerNorm GPT block)."""
        tokens = x.shape[0]
        seq = tokens // batch
        normed = kernels.layer_norm(x, *self.norm1)
        qkv = ColumnParallelLinear.apply(normed, self.qkv[0], self.qkv[1], parallel)
        q, k, v = qkv.view(batch, seq, 3, self.local_heads, self.head_dim).permute(2, 0, 3, 1, 4).unbind(0)
        attention = kernels.attention(q, k, v, True)
        attention = attention.permute(0, 2, 1, 3).reshape(tokens, self.local_heads * self.head_dim)
        projected = RowParallelLinear.apply(attention, self.proj[0], parallel)
        x = kernels.bias_dropout_add(projected, self.proj[1], x, self.dropout)
        normed = kernels.layer_norm(x, *self.norm2)
        hidden = kernels.gelu(ColumnParallelLinear.apply(normed, self.fc1[0], self.fc1[1], parallel))
        out = RowParallelLinear.apply(hidden, self.fc2[0], parallel)
        return kernels.bias_dropout_add(out, self.fc2[1], x, self.dropout)


class Stage:
    def __init__(self, job, coord, dtype, device, dropout):
        model = job.model
        self.job = job
        self.first = coord.pp == 0
        self.last = coord.pp == job.pp - 1
        self.factory = factory = ParameterFactory(dtype, device, coord.tp, job.tp)
        vocab = padded_vocab(model.vocab_size, job.tp)
        self.vocab_start = coord.tp * (vocab // job.tp)
        self.word_embedding = None
        if self.first:
            self.word_embedding = factory.normal("word_embedding", (vocab, model.hidden_size), split_dim=0)
            self.position_embedding = factory.normal("position_embedding", (model.seq_length, model.hidden_size))
        first_layer, count = stage_layers(model.num_layers, job.pp, coord.pp)
        self.layers = [Layer(factory, first_layer + i, model, job.tp, dropout) for i in range(count)]
        if self.last:
            self.final_norm = (factory.constant(1, model.hidden_size), factory.constant(0, model.hidden_size))
            if model.tie_embeddings and self.first:
                self.head = self.word_embedding
            else:
                # A tied model's last stage keeps a copy of the table, made equal by the seed and
                # kept equal by the embedding-gradient all-reduce (Megatron-LM does the same).
                self.head = factory.normal("word_embedding" if model.tie_embeddings else "lm_head",
                                           (vocab, model.hidden_size), split_dim=0)

    @property
    def parameters(self):
        return self.factory.parameters

    def embedding_table(self):
        """The parameter whose gradient the tied-embedding all-reduce sums, or None."""
        if not self.job.model.tie_embeddings or self.job.pp == 1:
            return None
        return self.word_embedding if self.first else self.head

    def embed(self, ids, parallel):
        batch, seq = ids.shape
        local = ids - self.vocab_start
        if self.job.tp > 1:
            outside = (local < 0) | (local >= self.word_embedding.shape[0])
            words = kernels.embedding(local.masked_fill(outside, 0), self.word_embedding)
            words = ReduceFromTensorGroup.apply(words.masked_fill(outside.unsqueeze(-1), 0.0), parallel)
        else:
            words = kernels.embedding(local, self.word_embedding)
        return (words + self.position_embedding[:seq]).reshape(batch * seq, -1)

    def forward(self, x, batch, parallel):
        for layer in self.layers:
            x = layer.forward(x, batch, parallel)
        return x

    def loss(self, x, targets, parallel):
        normed = kernels.layer_norm(x, *self.final_norm)
        logits = ColumnParallelLinear.apply(normed, self.head.t(), None, parallel)
        flat_targets = targets.reshape(-1)
        if self.job.tp > 1:
            loss = VocabParallelCrossEntropy.apply(logits, flat_targets, self.vocab_start, parallel)
        else:
            loss = kernels.cross_entropy_loss(logits, flat_targets)
        return loss / self.job.num_microbatches
