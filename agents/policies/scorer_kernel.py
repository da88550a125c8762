"""The setting scorer's per-setting work in one autograd function with a hand-written backward.

:class:`splitpoker.agents.policies.setting_scorer.SettingScorerNet` (ReLU) spends most of a
training step on tensors of shape ``[B, S, hidden]`` (``B`` hands, ``S`` = 105 or 21 settings):
the shared network over the setting rows, the mean and max over settings, and the scores. Written
with ordinary modules, autograd keeps a separate ``[B, S, hidden]`` gradient for each of the three
uses of ``h`` and adds them, computes amax's gradient with bool masks (torch's ``AmaxBackward``
alone was a third of a training step) and runs broadcast products for the scores.
:func:`scorer_core` computes the same values with the same torch operations in the same order
(bit for bit: ``tests/test_setting_scorer_speed.py``), and its backward builds the gradient of
``h`` in one buffer (float masks, ``threshold_backward`` for the ReLUs, one batched product for the
score weights). Gradients equal autograd's to float rounding (the sums run in another order)::

    rows [B, S, F] ─ relu(x W1ᵀ + b1) = a1 ─ relu(a1 W2ᵀ + b2) = h [B, S, H]
    mean_s h, max_s h                                      -> the pooled value features
    ctx = relu([c, mean_s h] Wcᵀ + bc);  v = ctx Wmᵀ + w   -> score_s = h_s · v + b

The parameters stay those of the network's modules (``phi``, ``ctx``, ``modulate``, ``score``):
``state_dict`` and saved models are unchanged.
"""

from __future__ import annotations

import torch as th


class _ScorerCore(th.autograd.Function):
    @staticmethod
    def forward(ctx, rows, c, w1, b1, w2, b2, wc, bc, wm, ws, bs):
        n_hands, n_settings, n_features = rows.shape
        x = rows.reshape(n_hands * n_settings, n_features)
        a1 = th.addmm(b1, x, w1.t()).relu_()
        h = th.addmm(b2, a1, w2.t()).relu_().view(n_hands, n_settings, -1)
        mean = h.mean(dim=1)
        top = h.amax(dim=1)
        cm = th.cat([c, mean], dim=1)
        cx = th.addmm(bc, cm, wc.t()).relu_()
        v = cx.matmul(wm.t()) + ws
        scores = (h * v.unsqueeze(1)).sum(dim=2) + bs
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(x, a1, h, top, cm, cx, v, w1, w2, wc, wm)
        return scores, mean, top

    @staticmethod
    def backward(ctx, g_scores, g_mean, g_top):
        x, a1, h, top, cm, cx, v, w1, w2, wc, wm = ctx.saved_tensors
        n_hands, n_settings, hidden = h.shape
        if g_scores is None:
            g_scores = h.new_zeros(n_hands, n_settings)
        if g_mean is None:
            g_mean = h.new_zeros(n_hands, hidden)
        if g_top is None:
            g_top = h.new_zeros(n_hands, hidden)
        # the score head: score_s = h_s . v + b, v = ctx Wm^T + w, ctx = relu([c, mean] Wc^T + bc)
        g_v = th.bmm(g_scores.unsqueeze(1), h).squeeze(1)
        g_bs = g_scores.sum().reshape(1)
        g_ws = g_v.sum(dim=0, keepdim=True)
        g_wm = g_v.t().matmul(cx)
        g_z = th.ops.aten.threshold_backward(g_v.matmul(wm), cx, 0.0)
        g_wc = g_z.t().matmul(cm)
        g_bc = g_z.sum(dim=0)
        g_cm = g_z.matmul(wc)
        g_c = g_cm[:, :hidden]
        g_mean = (g_mean + g_cm[:, hidden:]) / n_settings
        # dL/dh in one buffer: amax's share (split equally among ties, as torch's own), the scores', the mean's
        g = th.eq(h, top.unsqueeze(1), out=th.empty_like(h))  # a float mask: bool tensors are slow on CPU
        g.mul_((g_top / g.sum(dim=1)).unsqueeze(1))
        g.addcmul_(g_scores.unsqueeze(2), v.unsqueeze(1))
        g.add_(g_mean.unsqueeze(1))
        g2 = th.ops.aten.threshold_backward(g.view(-1, hidden), h.view(-1, hidden), 0.0)
        g1 = th.ops.aten.threshold_backward(g2.matmul(w2), a1, 0.0)
        return (None, g_c, g1.t().matmul(x), g1.sum(dim=0), g2.t().matmul(a1), g2.sum(dim=0),
                g_wc, g_bc, g_wm, g_ws, g_bs)


def scorer_core(rows: th.Tensor, c: th.Tensor, phi, ctx_layer, modulate, score):
    """``(scores[B, S], mean[B, H], max[B, H])`` of the setting rows ``rows[B, S, F]`` (contiguous)
    and the card features ``c[B, H]``; ``phi`` is ``Sequential(Linear, ReLU, Linear, ReLU)``,
    ``ctx_layer`` the context ``Linear`` (followed by a ReLU), ``modulate`` and ``score`` the score
    layers. The observation rows get no gradient (they are data)."""
    first, second = phi[0], phi[2]
    return _ScorerCore.apply(rows, c, first.weight, first.bias, second.weight, second.bias, ctx_layer.weight,
                             ctx_layer.bias, modulate.weight, score.weight, score.bias)
