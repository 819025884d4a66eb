"""The text tables and the plot of an :class:`coupsolve.analysis.history.Analysis`.

Every rate is shown beside how often its claim is made; a rate whose events come less than
``REACH_THRESHOLD`` times a game (the claim's, or for the challenge's success rate the challenges') is in
parentheses (pale and hatched in the plot), a claim never made reads "never made" (no bar, the words on
the plot), distinct from a bluff rate of 0%.
"""

from __future__ import annotations

import math

import numpy as np

from coupsolve.analysis.claims import CLAIMS, REACH_THRESHOLD


def rate(x, made, width=7, reach=None) -> str:
    """A rate as a percentage, right-aligned in ``width``.

    ``never made`` when its claim is never made (``made`` 0), ``-`` when the rate is undefined
    otherwise, in parentheses when ``reach`` (default ``made``: how often the rate's condition holds,
    a game) is below ``REACH_THRESHOLD``.
    """
    if made <= 0.0:
        return f"{'never made':>{width}}"
    if math.isnan(x):
        return f"{'-':>{width}}"
    text = f"{100 * x:.1f}%"
    return f"{'(' + text + ')' if (made if reach is None else reach) < REACH_THRESHOLD else text:>{width}}"


def table(a) -> str:
    """The analysis ``a`` as text: claims, rates by turn and by influence, card choice, hand values
    (each under the strategy and by the seat's best response)."""
    shown = a.shown_claims()
    lines = [f"game value: p0 {a.game_value[0]:+.4f}, p1 {a.game_value[1]:+.4f}", "",
             f"{'claim':<17}{'character':<18}{'made/game':>10}{'bluff':>11}{'challenged':>12}"
             f"{'chal. wins':>12}"]
    for c in shown:
        s = a.claims[c]
        lines.append(f"{s.claim:<17}{s.character:<18}{s.made:>10.3f}{rate(s.bluff, s.made, 11)}"
                     f"{rate(s.challenged, s.made, 12)}"
                     f"{rate(s.challenge_success, s.made, 12, s.made * np.nan_to_num(s.challenged))}")
    for title, rows_by in (("by turn", a.by_turn), ("by the claimant's influence", a.by_influence)):
        lines += ["", f"bluff rate {title} (made/game in brackets):",
                  f"{'':<17}" + "".join(f"{str(k):>22}" for k in rows_by)]
        for c in shown:
            lines.append(f"{CLAIMS[c]:<17}" + "".join(
                f"{rate(rows[c].bluff, rows[c].made, 11)} [{rows[c].made:7.4f}]" for rows in rows_by.values()))
    lines += ["", f"( ): what the rate counts comes less than {REACH_THRESHOLD} times a game (the claim; for "
              "chal. wins, the challenges), so the strategy there is not converged; never made: no rate "
              "(not a bluff rate of 0%)"]
    if a.choice:
        lines += ["", "card choice: probability; value to the chooser if it then plays the strategy, "
                  "if it then best-responds to the opponent's strategy, and the regret (best card's "
                  "best-response value minus this card's):"]
        for seat, dist in a.choice.items():
            br = a.choice_best_response[seat]
            best = max(br.values())
            lines.append(f"  p{seat}:")
            lines += [f"    {c:<11}{100 * p:6.1f}%  strategy {a.choice_value[seat][c]:+.4f}  "
                      f"best response {br[c]:+.4f}  regret {best - br[c]:.4f}" for c, p in dist.items()]
    if a.hand_value:
        lines += ["", "value by starting hand (the cards at the first turn): probability under the strategy; "
                  "value to the seat if it plays the strategy, if it best-responds to the opponent's "
                  "strategy from the first turn on, and the gain (hands reached under 0.1% left out):"]
        for seat, hands in a.hand_value.items():
            br = a.hand_best_response[seat]
            top = sorted(((h, pv) for h, pv in hands.items() if pv[0] >= 1e-3), key=lambda kv: -kv[1][1])
            lines.append(f"  p{seat}:")
            lines += [f"    {h:<24}{100 * p:6.1f}%  strategy {v:+.4f}  best response {br[h]:+.4f}  "
                      f"gain {br[h] - v:.4f}" for h, (p, v) in top]
    return "\n".join(lines)


def _rate_panel(ax, names, rows, values, color, label, xlabel):
    """Horizontal bars of ``values``; rarely made claims pale and hatched, never made ones named."""
    nz = [0.0 if math.isnan(v) else v for v in values]
    low = [0 < r.made < REACH_THRESHOLD for r in rows]
    bars = ax.barh(names, nz, color=color, label=label)
    for bar, is_low in zip(bars, low):
        if is_low:
            bar.set_alpha(0.35)
            bar.set_hatch("//")
    for y, r in enumerate(rows):
        if r.made <= 0.0:
            ax.text(0.02, y, "never made", va="center", fontsize="small", color="0.4")
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("claim")
    ax.invert_yaxis()


def plot(a, path) -> None:
    """Bar charts of ``a``'s bluff and challenge rates per claim and its card choice, written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 3 if a.choice else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 4.8))
    rows = [a.claims[c] for c in a.shown_claims()]
    names = [f"{r.claim} ({r.made:.3g}/game)" for r in rows]
    _rate_panel(axes[0], names, rows, [r.bluff for r in rows], "tab:red", "bluffed",
                "bluff rate: P(claimant lacks the card | claim made)")
    axes[0].set_title("bluff rate")
    axes[0].legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), fontsize="small")  # every colour named
    _rate_panel(axes[1], names, rows, [r.challenged for r in rows], "tab:blue", "challenged",
                "P(challenged | claim made)")
    axes[1].barh(names, [0.0 if math.isnan(r.challenged * r.challenge_success) else
                         r.challenged * r.challenge_success for r in rows], color="tab:cyan",
                 label="challenged and caught")
    axes[1].set_title("challenge rate")
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize="small")
    if a.choice:
        width = 0.8 / len(a.choice)
        for k, (seat, dist) in enumerate(a.choice.items()):
            axes[2].bar(np.arange(len(dist)) + k * width, list(dist.values()), width, label=f"p{seat}")
        axes[2].set_xticks(np.arange(len(dist)) + width * (len(a.choice) - 1) / 2, list(dist), rotation=30)
        axes[2].set_title("card choice")
        axes[2].set_xlabel("character chosen")
        axes[2].set_ylabel("probability")
        axes[2].set_ylim(0, 1)
        axes[2].legend()
    heading = a.meta.get("title", "")
    fig.suptitle(f"{heading}\npale, hatched: made under {REACH_THRESHOLD}/game (not converged)",
                 fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
