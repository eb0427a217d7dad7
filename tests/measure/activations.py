#!/usr/bin/env python3
"""Measures what autograd keeps for backward in small Hugging Face-style models (CPU, nothing downloaded).

The models are written the way transformers writes them (transformers v4.46-v4.50, the versions with
`eager_attention_forward` and `ForCausalLMLoss`):
  - Llama / Qwen2: src/transformers/models/llama/modeling_llama.py (LlamaRMSNorm upcasts to fp32,
    LlamaMLP = down(act(gate(x)) * up(x)), rotary via apply_rotary_pos_emb, eager_attention_forward with
    repeat_kv and softmax(dtype=torch.float32).to(query.dtype), then dropout).
  - Mixtral MoE block: src/transformers/models/mixtral/modeling_mixtral.py (MixtralSparseMoeBlock: router
    softmax in fp32, top-k, renormalised, a loop over experts with index / index_add_).
  - GPT-2: src/transformers/models/gpt2/modeling_gpt2.py (Conv1D c_attn split into q, k, v, causal `bias`
    buffer with torch.where, softmax in the activation dtype, attn/resid/embd dropout, gelu_new as
    NewGELUActivation in src/transformers/activations.py).
  - BERT: src/transformers/models/bert/modeling_bert.py (BertSelfAttention eager, BertSelfOutput,
    BertIntermediate with GELU, BertOutput; hidden_dropout_prob and attention_probs_dropout_prob),
    BertForSequenceClassification's pooler and classifier.
  - LoRA: PEFT's src/peft/tuners/lora/layer.py Linear.forward (base(x) + lora_B(lora_A(x)) * scaling) on every
    linear layer of the blocks, the base frozen in bf16; QLoRA: the base in NF4, through an autograd Function that
    keeps what bitsandbytes' MatMul4Bit (bitsandbytes/autograd/_functions.py) keeps: the packed weight only.
    A frozen embedding's output is made to require grad, as transformers' enable_input_require_grads does.
  - The loss: src/transformers/loss/loss_utils.py ForCausalLMLoss (logits.float(), labels padded and
    shifted, cross_entropy).
  - flash-style attention: a custom autograd Function that saves exactly q, k, v (unexpanded K/V heads),
    the output and the fp32 log-sum-exp per head and token, as FlashAttention-2 and torch's SDPA
    flash / memory-efficient kernels do; the output is laid out [b, s, heads, d] as theirs is, so the
    o-projection's input is the same storage.

What is counted: every tensor autograd packs for backward (torch.autograd.graph.saved_tensors_hooks),
deduplicated by storage (data_ptr), its bytes the storage's nbytes; parameters and buffers are not
activations and are left out. Attribution: the scope (embedding, layer i, head, loss) in which a
storage is first packed. Under torch.utils.checkpoint(use_reentrant=False), torch 1.13 installs its own
saved_tensors_hooks inside the checkpointed call, which shadow these; what it keeps are references to
the call's inputs, so the script counts the storages of those inputs (and everything outside the
checkpointed calls with the hooks as before).

The backward's transient is measured with the process's resident memory: glibc's mmap threshold is
fixed (MALLOC_MMAP_THRESHOLD_), so every tensor of 16 KiB or more is its own mapping, returned at free;
/proc/self/clear_refs (5) resets the high-water mark before backward, VmHWM reads it after. The figure
is the peak above the level at the start of backward, parameter gradients included (they are
allocated during backward). `rss_forward_bytes` is the independent check of the hook count: resident
growth over the forward pass (saved activations plus live outputs such as the logits).

Usage: python3 tests/measure/activations.py [--out FILE] [--quick]
Exit 0 and JSON on success; exit 77 when torch is not installed (ctest's skip code).
"""
import argparse
import json
import math
import os
import sys

MMAP_ENV = {"MALLOC_MMAP_THRESHOLD_": "16384", "MALLOC_TRIM_THRESHOLD_": "0", "MALLOC_TOP_PAD_": "0"}
if any(os.environ.get(k) != v for k, v in MMAP_ENV.items()):
    os.environ.update(MMAP_ENV)
    os.execv(sys.executable, [sys.executable] + sys.argv)

try:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torch.utils.checkpoint import checkpoint
except ImportError:
    print("torch is not installed: nothing measured", file=sys.stderr)
    sys.exit(77)

torch.manual_seed(0)
torch.set_num_threads(1)

# --------------------------------------------------------------------------------------------------
# Counting saved storages

class Recorder:
    def __init__(self):
        self.scope = "other"
        self.seen = {}  # data_ptr -> (scope, nbytes, dtype)
        self.excluded = set()
        self.enabled = True

    def exclude_module(self, module):
        for t in list(module.parameters()) + list(module.buffers()):
            self.excluded.add(t.storage().data_ptr())

    def note(self, t):
        if not self.enabled or not isinstance(t, torch.Tensor):
            return
        s = t.storage()
        ptr = s.data_ptr()
        if ptr in self.excluded or ptr in self.seen or s.nbytes() == 0:
            return
        self.seen[ptr] = (self.scope, s.nbytes(), str(t.dtype).replace("torch.", ""))

    def pack(self, t):
        self.note(t)
        return t

    def by_scope(self):
        out = {}
        for scope, nbytes, _ in self.seen.values():
            out[scope] = out.get(scope, 0) + nbytes
        return out


REC = Recorder()


class Scope:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.prev, REC.scope = REC.scope, self.name

    def __exit__(self, *exc):
        REC.scope = self.prev


def maybe_checkpoint(fn, use_ckpt, *args):
    if not use_ckpt:
        return fn(*args)
    for a in args:  # torch 1.13 non-reentrant checkpoint keeps references to its inputs
        if isinstance(a, torch.Tensor):
            REC.note(a)
        elif isinstance(a, tuple):
            for x in a:
                REC.note(x)
    return checkpoint(fn, *args, use_reentrant=False)

# --------------------------------------------------------------------------------------------------
# Attention implementations

def repeat_kv(x, n_rep):
    b, kv, s, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(b, kv, n_rep, s, d).reshape(b, kv * n_rep, s, d)


def eager_attention_forward(q, k, v, n_rep, scaling, dropout, training, causal_mask):
    k = repeat_kv(k, n_rep)
    v = repeat_kv(v, n_rep)
    w = torch.matmul(q, k.transpose(2, 3)) * scaling
    if causal_mask is not None:
        w = w + causal_mask
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    w = F.dropout(w, p=dropout, training=training)
    out = torch.matmul(w, v)
    return out.transpose(1, 2).contiguous()


class FlashStyleAttention(torch.autograd.Function):
    """Keeps q, k, v (K/V unexpanded), the output and the fp32 log-sum-exp; recomputes the rest."""

    @staticmethod
    def forward(ctx, q, k, v, scaling, causal):
        n_rep = q.shape[1] // k.shape[1]
        with torch.no_grad():
            kk, vv = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
            s = torch.matmul(q.float(), kk.float().transpose(2, 3)) * scaling
            if causal:
                n = q.shape[2]
                s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
            lse = torch.logsumexp(s, dim=-1)  # [b, a, s] fp32
            p = torch.exp(s - lse[..., None])
            out = torch.matmul(p, vv.float()).to(q.dtype)
            out_bsad = out.transpose(1, 2).contiguous()  # FlashAttention's layout
            del s, p, kk, vv, out
        ctx.save_for_backward(q, k, v, out_bsad, lse)
        ctx.scaling, ctx.causal = scaling, causal
        return out_bsad.transpose(1, 2)

    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, out_bsad, lse = ctx.saved_tensors
        n_rep = q.shape[1] // k.shape[1]
        qf, kf, vf = q.float(), repeat_kv(k, n_rep).float(), repeat_kv(v, n_rep).float()
        s = torch.matmul(qf, kf.transpose(2, 3)) * ctx.scaling
        if ctx.causal:
            n = q.shape[2]
            s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
        p = torch.exp(s - lse[..., None])
        go = grad_out.float()
        dv = torch.matmul(p.transpose(2, 3), go)
        dp = torch.matmul(go, vf.transpose(2, 3))
        o = out_bsad.transpose(1, 2).float()
        delta = (go * o).sum(-1, keepdim=True)
        ds = p * (dp - delta) * ctx.scaling
        dq = torch.matmul(ds, kf)
        dk = torch.matmul(ds.transpose(2, 3), qf)
        b, a, n, d = q.shape
        kvh = k.shape[1]
        dk = dk.view(b, kvh, n_rep, n, d).sum(2)
        dv = dv.view(b, kvh, n_rep, n, d).sum(2)
        return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype), None, None


def flash_attention_forward(q, k, v, scaling, causal):
    return FlashStyleAttention.apply(q, k, v, scaling, causal).transpose(1, 2).contiguous()

# --------------------------------------------------------------------------------------------------
# Llama / Qwen2 / Mixtral

class LlamaRMSNorm(nn.Module):
    def __init__(self, h, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class LlamaAttention(nn.Module):
    def __init__(self, c, impl):
        super().__init__()
        h, self.heads, self.kv, self.d = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        bias = c.get("attention_bias", False)
        self.q_proj = nn.Linear(h, self.heads * self.d, bias=bias)
        self.k_proj = nn.Linear(h, self.kv * self.d, bias=bias)
        self.v_proj = nn.Linear(h, self.kv * self.d, bias=bias)
        self.o_proj = nn.Linear(self.heads * self.d, h, bias=False)
        self.dropout = c.get("attention_dropout", 0.0)
        self.impl = impl

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, -1, self.d).transpose(1, 2)
        k = self.k_proj(x).view(b, s, -1, self.d).transpose(1, 2)
        v = self.v_proj(x).view(b, s, -1, self.d).transpose(1, 2)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        scaling = self.d ** -0.5
        if self.impl == "eager":
            mask = torch.full((s, s), torch.finfo(x.dtype).min, dtype=x.dtype).triu(1)[None, None]
            out = eager_attention_forward(q, k, v, self.heads // self.kv, scaling, self.dropout, self.training, mask)
        else:
            out = flash_attention_forward(q, k, v, scaling, True)
        return self.o_proj(out.reshape(b, s, -1))


class LlamaMLP(nn.Module):
    def __init__(self, h, i):
        super().__init__()
        self.gate_proj = nn.Linear(h, i, bias=False)
        self.up_proj = nn.Linear(h, i, bias=False)
        self.down_proj = nn.Linear(i, h, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class MixtralSparseMoeBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        h = c["hidden_size"]
        self.top_k, self.num_experts = c["num_experts_per_tok"], c["num_local_experts"]
        self.gate = nn.Linear(h, self.num_experts, bias=False)
        self.experts = nn.ModuleList(LlamaMLP(h, c["intermediate_size"]) for _ in range(self.num_experts))

    def forward(self, x):
        b, s, h = x.shape
        x = x.view(-1, h)
        router_logits = self.gate(x)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(x.dtype)
        final = torch.zeros((b * s, h), dtype=x.dtype)
        expert_mask = F.one_hot(selected, num_classes=self.num_experts).permute(2, 1, 0)
        for e in range(self.num_experts):
            idx, top_x = torch.where(expert_mask[e])
            current = x[None, top_x].reshape(-1, h)
            out = self.experts[e](current) * routing_weights[top_x, idx, None]
            final.index_add_(0, top_x, out.to(x.dtype))
        return final.reshape(b, s, h)


class LlamaDecoderLayer(nn.Module):
    def __init__(self, c, impl):
        super().__init__()
        h = c["hidden_size"]
        self.input_layernorm = LlamaRMSNorm(h)
        self.self_attn = LlamaAttention(c, impl)
        self.post_attention_layernorm = LlamaRMSNorm(h)
        self.mlp = MixtralSparseMoeBlock(c) if "num_local_experts" in c else LlamaMLP(h, c["intermediate_size"])

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


def causal_lm_loss(logits, labels, vocab):
    logits = logits.float()
    labels = F.pad(labels, (0, 1), value=-100)
    shift = labels[..., 1:].contiguous()
    return F.cross_entropy(logits.view(-1, vocab), shift.view(-1), ignore_index=-100)


class LlamaForCausalLM(nn.Module):
    def __init__(self, c, impl, ckpt):
        super().__init__()
        self.c, self.ckpt = c, ckpt
        h = c["hidden_size"]
        self.embed_tokens = nn.Embedding(c["vocab_size"], h)
        self.layers = nn.ModuleList(LlamaDecoderLayer(c, impl) for _ in range(c["num_hidden_layers"]))
        self.norm = LlamaRMSNorm(h)
        self.lm_head = nn.Linear(h, c["vocab_size"], bias=False)
        d = c["head_dim"]
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d)), persistent=False)

    def rotary(self, x, pos):
        with torch.no_grad():
            inv = self.inv_freq.float()[None, :, None].expand(pos.shape[0], -1, 1)
            freqs = (inv @ pos[:, None, :].float()).transpose(1, 2)
            emb = torch.cat((freqs, freqs), dim=-1)
            return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    def forward(self, ids, labels):
        with Scope("embedding"):
            x = self.embed_tokens(ids)
            if not x.requires_grad:  # a frozen embedding (LoRA): transformers' enable_input_require_grads
                x.requires_grad_(True)
            pos = torch.arange(ids.shape[1])[None].expand(ids.shape[0], -1)
            cos, sin = self.rotary(x, pos)
        for i, layer in enumerate(self.layers):
            with Scope(f"layer{i}"):
                x = maybe_checkpoint(layer, self.ckpt, x, cos, sin)
        with Scope("head"):
            logits = self.lm_head(self.norm(x))
        with Scope("loss"):
            loss = causal_lm_loss(logits, labels, self.c["vocab_size"])
        return loss, logits

# --------------------------------------------------------------------------------------------------
# LoRA and QLoRA (PEFT src/peft/tuners/lora/layer.py Linear.forward; bitsandbytes autograd/_functions.py MatMul4Bit)

NF4_CODE = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
            -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
            0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
            0.7229568362236023, 1.0]  # bitsandbytes' NF4 levels (QLoRA, Dettmers et al. 2023, appendix E)


def nf4_quantize(w, block=64):
    """Packs w [N, K] as bitsandbytes does for NF4: two 4-bit codes per byte, an fp32 absmax per 64 weights."""
    flat = w.detach().float().reshape(-1, block)
    absmax = flat.abs().amax(dim=1).clamp(min=1e-12)
    code = torch.tensor(NF4_CODE)
    idx = (flat / absmax[:, None])[..., None].sub(code).abs().argmin(-1).to(torch.uint8).reshape(-1)
    return (idx[0::2] << 4 | idx[1::2]).contiguous(), absmax


def nf4_dequantize(packed, absmax, shape, dtype, block=64):
    idx = torch.stack((packed >> 4, packed & 15), dim=1).reshape(-1).long()
    return (torch.tensor(NF4_CODE)[idx].reshape(-1, block) * absmax[:, None]).reshape(shape).to(dtype)


class MatMul4Bit(torch.autograd.Function):
    """As bitsandbytes' MatMul4Bit: the forward dequantizes and multiplies; only the packed weight (ctx.tensors =
    (None, B)) stays for backward, which dequantizes it again for grad_A. The input A is not kept."""

    @staticmethod
    def forward(ctx, a, packed, absmax, shape):
        with torch.no_grad():
            out = a @ nf4_dequantize(packed, absmax, shape, a.dtype).t()
        ctx.save_for_backward(packed, absmax)  # the packed weight and its constants: buffers, not activations
        ctx.shape = shape
        return out

    @staticmethod
    def backward(ctx, grad):
        packed, absmax = ctx.saved_tensors
        return grad @ nf4_dequantize(packed, absmax, ctx.shape, grad.dtype), None, None, None


class Linear4bit(nn.Module):
    def __init__(self, linear):
        super().__init__()
        packed, absmax = nf4_quantize(linear.weight)
        self.register_buffer("packed", packed)
        self.register_buffer("absmax", absmax)
        self.shape = tuple(linear.weight.shape)
        self.bias = linear.bias  # frozen with the rest of the base

    def forward(self, x):
        out = MatMul4Bit.apply(x, self.packed, self.absmax, self.shape)
        return out + self.bias if self.bias is not None else out


class LoraLinear(nn.Module):
    """PEFT's lora.Linear with lora_dropout=0 (PEFT's and Unsloth's default): base(x) + B(A(x)) * alpha / r. The
    adapters are in the activation dtype (Unsloth; PEFT with autocast_adapter_dtype=False)."""

    def __init__(self, base, r, quantized):
        super().__init__()
        self.base_layer = Linear4bit(base) if quantized else base
        dtype = base.weight.dtype
        self.lora_A = nn.Linear(base.in_features, r, bias=False, dtype=dtype)
        self.lora_B = nn.Linear(r, base.out_features, bias=False, dtype=dtype)
        nn.init.normal_(self.lora_B.weight, std=0.02)  # PEFT starts B at 0; any value keeps the same tensors
        self.scaling = 2.0

    def forward(self, x):
        return self.base_layer(x) + self.lora_B(self.lora_A(x)) * self.scaling


LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")  # all-linear


def adapt(model, mode, r):
    """Freezes the base and wraps every linear layer of the blocks (PEFT's all-linear: not lm_head)."""
    if mode == "full":
        return model
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for name in LORA_TARGETS:
                if hasattr(parent, name):
                    setattr(parent, name, LoraLinear(getattr(parent, name), r, mode == "qlora"))
    return model

# --------------------------------------------------------------------------------------------------
# GPT-2

class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.weight.size(-1),)
        return torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight).view(size_out)


def gelu_new(x):  # NewGELUActivation
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Block(nn.Module):
    def __init__(self, c, impl):
        super().__init__()
        h, n = c["n_embd"], c["n_positions"]
        self.heads, self.d, self.impl = c["n_head"], h // c["n_head"], impl
        self.ln_1 = nn.LayerNorm(h, eps=c["layer_norm_epsilon"])
        self.c_attn, self.c_proj = Conv1D(3 * h, h), Conv1D(h, h)
        self.attn_dropout, self.resid_dropout = nn.Dropout(c["attn_pdrop"]), nn.Dropout(c["resid_pdrop"])
        self.register_buffer("bias", torch.tril(torch.ones(n, n, dtype=torch.bool)).view(1, 1, n, n), persistent=False)
        self.ln_2 = nn.LayerNorm(h, eps=c["layer_norm_epsilon"])
        self.c_fc, self.mlp_proj = Conv1D(4 * h if c["n_inner"] is None else c["n_inner"], h), None
        inner = 4 * h if c["n_inner"] is None else c["n_inner"]
        self.mlp_proj = Conv1D(h, inner)
        self.mlp_dropout = nn.Dropout(c["resid_pdrop"])

    def split(self, t):
        b, s, _ = t.shape
        return t.view(b, s, self.heads, self.d).permute(0, 2, 1, 3)

    def attn(self, x):
        q, k, v = self.c_attn(x).split(x.shape[-1], dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        if self.impl == "eager":
            w = torch.matmul(q, k.transpose(-1, -2))
            w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
            s = q.size(-2)
            mask = self.bias[:, :, :s, :s]
            w = torch.where(mask, w.to(w.dtype), torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype))
            w = nn.functional.softmax(w, dim=-1).type(v.dtype)
            w = self.attn_dropout(w)
            out = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        else:
            out = flash_attention_forward(q, k, v, self.d ** -0.5, True)
        out = out.view(x.shape)
        return self.resid_dropout(self.c_proj(out))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp_dropout(self.mlp_proj(gelu_new(self.c_fc(self.ln_2(x)))))


class GPT2LMHeadModel(nn.Module):
    def __init__(self, c, impl, ckpt):
        super().__init__()
        self.c, self.ckpt = c, ckpt
        h = c["n_embd"]
        self.wte, self.wpe = nn.Embedding(c["vocab_size"], h), nn.Embedding(c["n_positions"], h)
        self.drop = nn.Dropout(c["embd_pdrop"])
        self.h = nn.ModuleList(GPT2Block(c, impl) for _ in range(c["n_layer"]))
        self.ln_f = nn.LayerNorm(h, eps=c["layer_norm_epsilon"])

    def forward(self, ids, labels):
        with Scope("embedding"):
            pos = torch.arange(ids.shape[1])[None]
            x = self.drop(self.wte(ids) + self.wpe(pos))
        for i, block in enumerate(self.h):
            with Scope(f"layer{i}"):
                x = maybe_checkpoint(block, self.ckpt, x)
        with Scope("head"):
            logits = F.linear(self.ln_f(x), self.wte.weight)  # tied lm_head
        with Scope("loss"):
            loss = causal_lm_loss(logits, labels, self.c["vocab_size"])
        return loss, logits

# --------------------------------------------------------------------------------------------------
# BERT

class BertLayer(nn.Module):
    def __init__(self, c, impl):
        super().__init__()
        h, i = c["hidden_size"], c["intermediate_size"]
        self.heads, self.d, self.impl = c["num_attention_heads"], h // c["num_attention_heads"], impl
        self.query, self.key, self.value = nn.Linear(h, h), nn.Linear(h, h), nn.Linear(h, h)
        self.attn_dropout = nn.Dropout(c["attention_probs_dropout_prob"])
        self.attn_out, self.attn_out_dropout = nn.Linear(h, h), nn.Dropout(c["hidden_dropout_prob"])
        self.attn_norm = nn.LayerNorm(h, eps=c["layer_norm_eps"])
        self.intermediate, self.output = nn.Linear(h, i), nn.Linear(i, h)
        self.out_dropout = nn.Dropout(c["hidden_dropout_prob"])
        self.out_norm = nn.LayerNorm(h, eps=c["layer_norm_eps"])

    def heads_view(self, t):
        b, s, _ = t.shape
        return t.view(b, s, self.heads, self.d).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.heads_view(self.query(x)), self.heads_view(self.key(x)), self.heads_view(self.value(x))
        if self.impl == "eager":
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d)
            probs = self.attn_dropout(nn.functional.softmax(scores, dim=-1))
            ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        else:
            ctx = flash_attention_forward(q, k, v, self.d ** -0.5, False)
        ctx = ctx.view(x.shape)
        a = self.attn_norm(self.attn_out_dropout(self.attn_out(ctx)) + x)
        y = self.output(F.gelu(self.intermediate(a)))
        return self.out_norm(self.out_dropout(y) + a)


class BertForSequenceClassification(nn.Module):
    def __init__(self, c, impl, ckpt):
        super().__init__()
        self.c, self.ckpt = c, ckpt
        h = c["hidden_size"]
        self.word, self.pos = nn.Embedding(c["vocab_size"], h), nn.Embedding(c["max_position_embeddings"], h)
        self.token_type = nn.Embedding(c["type_vocab_size"], h)
        self.emb_norm, self.emb_dropout = nn.LayerNorm(h, eps=c["layer_norm_eps"]), nn.Dropout(c["hidden_dropout_prob"])
        self.layer = nn.ModuleList(BertLayer(c, impl) for _ in range(c["num_hidden_layers"]))
        self.pooler = nn.Linear(h, h)
        self.cls_dropout, self.classifier = nn.Dropout(c["hidden_dropout_prob"]), nn.Linear(h, 2)

    def forward(self, ids, labels):
        with Scope("embedding"):
            pos = torch.arange(ids.shape[1])[None]
            x = self.word(ids) + self.token_type(torch.zeros_like(ids)) + self.pos(pos)
            x = self.emb_dropout(self.emb_norm(x))
        for i, layer in enumerate(self.layer):
            with Scope(f"layer{i}"):
                x = maybe_checkpoint(layer, self.ckpt, x)
        with Scope("head"):
            logits = self.classifier(self.cls_dropout(torch.tanh(self.pooler(x[:, 0]))))
        with Scope("loss"):
            loss = F.cross_entropy(logits.float(), labels[:, 0] % 2)
        return loss, logits

# --------------------------------------------------------------------------------------------------
# Configs (written here; small enough for a CPU)

LLAMA = {"model_type": "llama", "hidden_size": 256, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 32,
         "intermediate_size": 704, "num_hidden_layers": 2, "vocab_size": 1024, "rms_norm_eps": 1e-6,
         "attention_dropout": 0.0, "hidden_act": "silu", "tie_word_embeddings": False}
QWEN2 = dict(LLAMA, model_type="qwen2", attention_bias=True)  # q, k, v biases
MIXTRAL = dict(LLAMA, model_type="mixtral", intermediate_size=256, num_local_experts=4, num_experts_per_tok=2)
GPT2 = {"model_type": "gpt2", "n_embd": 256, "n_head": 8, "n_layer": 2, "n_positions": 256, "n_inner": None,
        "vocab_size": 1024, "layer_norm_epsilon": 1e-5, "attn_pdrop": 0.1, "resid_pdrop": 0.1, "embd_pdrop": 0.1,
        "activation_function": "gelu_new", "tie_word_embeddings": True}
BERT = {"model_type": "bert", "hidden_size": 256, "num_attention_heads": 8, "num_hidden_layers": 2,
        "intermediate_size": 1024, "vocab_size": 1024, "max_position_embeddings": 256, "type_vocab_size": 2,
        "layer_norm_eps": 1e-12, "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu"}

LORA_RANK = 16

BUILDERS = {"llama": LlamaForCausalLM, "qwen2": LlamaForCausalLM, "mixtral": LlamaForCausalLM,
            "gpt2": GPT2LMHeadModel, "bert": BertForSequenceClassification}
DROPOUT_KEYS = ("attention_dropout", "attn_pdrop", "resid_pdrop", "embd_pdrop", "hidden_dropout_prob",
                "attention_probs_dropout_prob")


def without_dropout(c):
    return {k: (0.0 if k in DROPOUT_KEYS else v) for k, v in c.items()}


def cases(quick):
    out = []
    for name, cfg in (("llama", LLAMA), ("qwen2", QWEN2)):
        for impl in ("eager", "flash"):
            for dtype in ("bfloat16", "float32"):
                for ckpt in (False, True):
                    if name == "qwen2" and (dtype == "float32" or ckpt):
                        continue
                    out.append((name, cfg, impl, dtype, ckpt))
    out.append(("llama", dict(LLAMA, attention_dropout=0.1), "eager", "bfloat16", False))
    for impl in ("eager", "flash"):
        out.append(("mixtral", MIXTRAL, impl, "bfloat16", False))
    out.append(("mixtral", MIXTRAL, "flash", "bfloat16", True))
    for dtype in ("float32", "bfloat16"):
        out.append(("gpt2", GPT2, "eager", dtype, False))
        out.append(("gpt2", without_dropout(GPT2), "eager", dtype, False))
    out.append(("gpt2", GPT2, "flash", "bfloat16", False))
    out.append(("gpt2", GPT2, "eager", "float32", True))
    out.append(("bert", BERT, "eager", "float32", False))
    out.append(("bert", without_dropout(BERT), "eager", "float32", False))
    out.append(("bert", BERT, "eager", "bfloat16", False))
    out.append(("bert", BERT, "flash", "float32", False))
    out.append(("bert", BERT, "eager", "float32", True))
    out = [c + ("full",) for c in out]
    for mode in ("lora", "qlora"):  # the frozen base in bf16 (LoRA) or NF4 (QLoRA), rank-16 adapters on all-linear
        out.append(("llama", LLAMA, "eager", "bfloat16", False, mode))
        out.append(("llama", LLAMA, "flash", "bfloat16", False, mode))
        out.append(("llama", LLAMA, "flash", "bfloat16", True, mode))
    return out[:3] if quick else out

# --------------------------------------------------------------------------------------------------
# Measuring

def status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure(name, cfg, impl, dtype_name, ckpt, mode, batch, seq):
    dtype = getattr(torch, dtype_name)
    model = adapt(BUILDERS[name](cfg, impl, ckpt).to(dtype), mode, LORA_RANK)
    model.train()
    REC.__init__()
    REC.exclude_module(model)
    ids = torch.randint(0, cfg["vocab_size"], (batch, seq))
    labels = ids.clone()
    REC.note(ids)  # the inputs are the caller's, not activations
    REC.excluded.add(ids.storage().data_ptr())
    REC.excluded.add(labels.storage().data_ptr())
    REC.seen.clear()
    rss0 = status_kib("VmRSS")
    with torch.autograd.graph.saved_tensors_hooks(REC.pack, lambda t: t):
        loss, logits = model(ids, labels)
    rss1 = status_kib("VmRSS")
    REC.enabled = False
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    peak_ok = reset_peak()
    before = status_kib("VmRSS")
    loss.backward()
    peak = status_kib("VmHWM") if peak_ok else 0
    scopes = REC.by_scope()
    layers = [scopes.get(f"layer{i}", 0) for i in range(len([k for k in scopes if k.startswith("layer")]))]
    total = sum(scopes.values())
    return {
        "model": name, "config": cfg, "attn_implementation": impl, "dtype": dtype_name,
        "checkpointing": "full" if ckpt else "none", "batch": batch, "sequence": seq, "mode": mode,
        "lora_rank": LORA_RANK if mode != "full" else 0,
        "dropout": any(cfg.get(k, 0) > 0 for k in DROPOUT_KEYS),
        "layers_bytes": layers, "embedding_bytes": scopes.get("embedding", 0), "head_bytes": scopes.get("head", 0),
        "loss_bytes": scopes.get("loss", 0), "total_bytes": total, "parameter_bytes": params,
        "rss_forward_bytes": rss1 - rss0,
        "backward_peak_above_start_bytes": max(0, peak - before) if peak_ok else None,
        "saved": sorted(({"scope": s, "bytes": n, "dtype": d} for s, n, d in REC.seen.values()),
                        key=lambda r: (r["scope"], -r["bytes"])),
    }


def key(c):
    return (c["model"], json.dumps(c["config"], sort_keys=True), c["attn_implementation"], c["dtype"],
            c["checkpointing"], c["batch"], c["sequence"], c.get("mode", "full"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="write the JSON here (default: stdout)")
    ap.add_argument("--quick", action="store_true", help="three cases only (the CLI test)")
    ap.add_argument("--check", help="exit 1 unless the byte counts equal this committed file's same cases")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--sequence", type=int, default=128)
    args = ap.parse_args()
    results = [measure(*c, args.batch, args.sequence) for c in cases(args.quick)]
    doc = {"torch_version": torch.__version__, "python_version": sys.version.split()[0],
           "method": "unique storages packed by torch.autograd.graph.saved_tensors_hooks (parameters and buffers "
                     "left out); backward transient from VmHWM with a fixed glibc mmap threshold",
           "transformers_reference": "v4.46-v4.50 modeling_llama.py, modeling_mixtral.py, modeling_gpt2.py, "
                                     "modeling_bert.py, loss/loss_utils.py",
           "cases": results}
    text = json.dumps(doc, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    elif not args.check:
        print(text)
    if args.check:
        with open(args.check) as f:
            committed = {key(c): c for c in json.load(f)["cases"]}
        for r in results:
            c = committed.get(key(r))
            fields = ("layers_bytes", "embedding_bytes", "head_bytes", "loss_bytes", "total_bytes")
            if c is None or any(c[k] != r[k] for k in fields):
                print(f"differs from {args.check}: {key(r)}", file=sys.stderr)
                sys.exit(1)
    for r in results:
        print(f"{r['model']:8} {r['mode']:5} {r['attn_implementation']:6} {r['dtype']:9} ckpt={r['checkpointing']:4} "
              f"dropout={int(r['dropout'])} layer={r['layers_bytes'][-1]:>9} total={r['total_bytes']:>9} "
              f"rss_fwd={r['rss_forward_bytes']:>9} bwd_peak={r['backward_peak_above_start_bytes']}", file=sys.stderr)


if __name__ == "__main__":
    main()
