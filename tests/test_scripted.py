"""Scripted games through the action names of docs/rules.md, one per tricky rule (golden transcripts)."""

import pytest

from coupsolve import Rules
from coup_helpers import legal_names, play

TWO = Rules.standard(players=2, starting_coins="3,3")


def test_proven_assassin_then_bluffed_contessa_costs_two_influence_in_one_turn():
    s = play(TWO, ["Deal Duke+Assassin", "Deal Captain+Ambassador",
                   "Assassinate p1", "Challenge"])
    # p0 proved: p1 chooses which card to lose
    assert legal_names(s) == ["Lose Captain", "Lose Ambassador"]
    play(TWO, ["Lose Captain", "Draw Contessa"], s)  # p0's replacement draw
    assert s.hand(0) == ["Duke", "Contessa"]
    assert legal_names(s) == ["Pass", "Block Contessa"]  # the target may still block
    play(TWO, ["Block Contessa", "Challenge"], s)
    # p1 bluffed: the last card is lost without a decision and the game is over
    assert s.is_terminal()
    assert s.influence == [2, 0]
    assert s.face_up[1] == ["Captain", "Ambassador"]
    assert s.returns() == [1.0, -1.0]
    assert s.turn == 1


def test_lost_challenge_then_assassinated():
    rules = Rules.standard(players=3, starting_coins="3,3")
    s = play(rules, ["Deal Assassin+Duke", "Deal Captain+Ambassador", "Deal Contessa+Contessa",
                     "Assassinate p1", "Challenge", "Lose Ambassador", "Draw Duke", "Pass"])
    # p2 was never asked: p1's challenge stopped the round. p1 was then assassinated too.
    assert s.influence == [2, 0, 2]
    assert sorted(s.face_up[1]) == ["Ambassador", "Captain"]
    assert s.coins == [0, 0, 3]  # an eliminated player's coins go back to the Treasury
    assert s.current_player() == 2 and s.turn == 2  # p1 is skipped


def test_assassinate_bluff_is_refunded():
    s = play(TWO, ["Deal Duke+Captain", "Deal Captain+Ambassador", "Assassinate p1"])
    assert s.coins == [0, 3]
    play(TWO, ["Challenge", "Lose Captain"], s)
    assert s.coins == [3, 3]
    assert s.influence == [1, 2]
    assert s.current_player() == 1 and s.turn == 2


def test_blocked_assassinate_stays_paid():
    s = play(TWO, ["Deal Assassin+Duke", "Deal Contessa+Ambassador",
                   "Assassinate p1", "Pass", "Block Contessa", "Pass"])
    assert s.coins == [0, 3]
    assert s.influence == [2, 2]
    assert s.current_player() == 1 and s.turn == 2


def test_target_may_block_after_losing_a_challenge_of_the_action():
    s = play(TWO, ["Deal Captain+Duke", "Deal Contessa+Ambassador",
                   "Steal p1", "Challenge", "Lose Contessa", "Draw Captain"])
    assert s.influence == [2, 1]
    assert legal_names(s) == ["Pass", "Block Captain", "Block Ambassador"]
    play(TWO, ["Block Ambassador", "Pass"], s)
    assert s.coins == [3, 3]  # the block stood


@pytest.mark.parametrize("target_coins,taken", [(0, 0), (1, 1), (5, 2)])
def test_steal_takes_at_most_two(target_coins, taken):
    rules = Rules.standard(players=2, starting_coins=f"3,{target_coins}")
    s = play(rules, ["Deal Captain+Duke", "Deal Contessa+Ambassador", "Steal p1", "Pass", "Pass"])
    assert s.coins == [3 + taken, target_coins - taken]


def test_steal_still_takes_coins_from_a_target_who_dies_on_the_challenged_block():
    rules = Rules.standard(players=3, starting_coins="2")
    s = play(rules, ["Deal Captain+Duke", "Deal Contessa+Contessa", "Deal Duke+Duke",
                     # five rounds of Income, then p0 brings p1 down to one influence
                     "Income", "Income", "Income",
                     "Income", "Income", "Income",
                     "Income", "Income", "Income",
                     "Income", "Income", "Income",
                     "Income", "Income", "Income",
                     "Coup p1"])
    assert s.influence == [2, 1, 2] and s.coins == [0, 7, 7]
    play(rules, ["Income", "Income", "Steal p1", "Pass", "Pass", "Block Captain", "Pass", "Challenge"], s)
    # p2 challenged p1's bluffed Captain: p1 lost the last card, and the Steal still took 2 coins
    assert s.influence == [2, 0, 2]
    assert s.coins == [2, 0, 8]
    assert s.current_player() == 2


def test_forced_coup_at_ten():
    rules = Rules.standard(players=3, starting_coins="10,2")
    s = play(rules, ["Deal Duke+Duke", "Deal Captain+Captain", "Deal Contessa+Contessa"])
    assert legal_names(s) == ["Coup p1", "Coup p2"]
    rules2 = Rules.standard(players=2, starting_coins="10,2")
    s2 = play(rules2, ["Deal Duke+Duke", "Deal Captain+Captain"])
    assert legal_names(s2) == ["Coup p1"]  # still a decision (the target is chosen)
    play(rules2, ["Coup p1"], s2)
    assert s2.influence == [2, 1] and s2.coins == [3, 2] and s2.face_up[1] == ["Captain"]


def test_exchange_with_one_influence_keeps_one_of_three():
    rules = Rules.standard(players=2, starting_coins="7,2")
    s = play(rules, ["Deal Ambassador+Duke", "Deal Captain+Contessa", "Coup p1", "Lose Captain",
                     "Exchange", "Pass", "Draw Duke+Assassin"])
    assert s.current_player() == 1
    assert legal_names(s) == ["Keep Duke", "Keep Assassin", "Keep Contessa"]
    play(rules, ["Keep Assassin"], s)
    assert s.hand(1) == ["Assassin"] and s.influence == [2, 1]
    assert s.current_player() == 0


def test_foreign_aid_blocked_by_any_player_and_challenged_by_a_bystander():
    rules = Rules.standard(players=3)
    s = play(rules, ["Deal Duke+Captain", "Deal Captain+Contessa", "Deal Assassin+Contessa",
                     "Foreign Aid", "Pass"])
    assert s.current_player() == 2  # p1 passed, p2 may still block
    play(rules, ["Block Duke"], s)
    assert s.current_player() == 0  # the actor challenges the block first
    play(rules, ["Pass"], s)
    assert s.current_player() == 1  # then p1, who is not involved
    play(rules, ["Challenge"], s)
    assert s.current_player() == 2  # p2 bluffed and chooses which card to lose
    play(rules, ["Lose Assassin"], s)
    assert s.coins == [4, 2, 2]  # the Foreign Aid went through
    assert s.current_player() == 1 and s.turn == 2


def test_challenge_and_block_order_in_four_players():
    rules = Rules.standard(players=4, starting_seat=1)
    s = play(rules, ["Deal Duke+Duke", "Deal Captain+Captain", "Deal Contessa+Contessa",
                     "Deal Ambassador+Ambassador"])
    assert s.current_player() == 1
    play(rules, ["Tax"], s)
    order = []
    while s.current_player() != 1 or not order:
        order.append(s.current_player())
        play(rules, ["Pass"], s)
        if s.turn == 2:
            break
    assert order == [2, 3, 0]
    assert s.coins == [2, 5, 2, 2]
    # Foreign Aid by p2: blockers asked p3, p0, p1; the block is challenged by p2 then p3 (not p0)
    play(rules, ["Foreign Aid"], s)
    assert s.current_player() == 3
    play(rules, ["Pass"], s)
    assert s.current_player() == 0
    play(rules, ["Block Duke"], s)
    asked = []
    for _ in range(3):
        if s.turn != 2:
            break
        asked.append(s.current_player())
        play(rules, ["Pass"], s)
    assert asked == [2, 3, 1]
    assert s.coins[2] == 2 and s.turn == 3


def test_elimination_mid_turn_skips_the_player_afterwards():
    rules = Rules.standard(players=3, starting_coins="2")
    s = play(rules, ["Deal Duke+Duke", "Deal Captain+Contessa", "Deal Ambassador+Ambassador",
                     "Income", "Income", "Income"])
    # bring p1 down to one card with a lost challenge, then out with another
    play(rules, ["Tax", "Challenge", "Lose Captain", "Draw Assassin"], s)
    assert s.influence == [2, 1, 2] and s.current_player() == 1
    play(rules, ["Tax", "Challenge"], s)  # p1 bluffs Duke (holds Contessa); p2 challenges
    assert s.influence == [2, 0, 2] and s.coins == [6, 0, 3]
    assert s.current_player() == 2  # the turn passed on; p1 is out
    play(rules, ["Income"], s)
    assert s.current_player() == 0


def test_card_selection_setup():
    rules = Rules.two_player_selection(turn_limit=3)
    s = play(rules, ["Choose Duke"])
    assert s.current_player() == 1
    assert legal_names(s) == ["Choose Duke", "Choose Assassin", "Choose Captain", "Choose Ambassador",
                              "Choose Contessa"]  # p1 chooses from a full set of their own
    play(rules, ["Choose Duke"], s)
    outcomes = dict((s.action_to_string(-1, a), p) for a, p in s.chance_outcomes())
    assert outcomes == {f"Deal {c}": pytest.approx(0.2) for c in
                        ["Duke", "Assassin", "Captain", "Ambassador", "Contessa"]}
    play(rules, ["Deal Captain", "Deal Duke"], s)
    assert s.hand(0) == ["Duke", "Captain"] and s.hand(1) == ["Duke", "Duke"]
    text = str(s)
    assert "court deck: Assassin+Ambassador+Contessa" in text
    assert s.coins == [1, 2]
    assert s.current_player() == 0 and s.turn == 1
    # the Court deck has three cards: an Exchange draws two of them
    play(rules, ["Exchange", "Pass"], s)
    outcomes = {s.action_to_string(-1, a): p for a, p in s.chance_outcomes()}
    assert outcomes == {"Draw Assassin+Ambassador": pytest.approx(1 / 3),
                        "Draw Assassin+Contessa": pytest.approx(1 / 3),
                        "Draw Ambassador+Contessa": pytest.approx(1 / 3)}


def test_turn_limit_ends_in_a_draw_or_by_influence():
    for payoff, expected in (("draw", [0.0, 0.0]), ("influence", [-1.0, 1.0])):
        rules = Rules.standard(players=2, turn_limit=2, limit_payoff=payoff)
        s = play(rules, ["Deal Duke+Duke", "Deal Captain+Captain", "Income", "Income"])
        assert s.is_terminal() and s.coins == [2, 3]
        assert s.returns() == expected  # equal influence: p1 leads on coins


def test_influence_payoff_shares_a_tie():
    rules = Rules.standard(players=3, turn_limit=3, limit_payoff="influence", starting_coins="2")
    s = play(rules, ["Deal Duke+Duke", "Deal Captain+Captain", "Deal Contessa+Ambassador",
                     "Income", "Income", "Tax", "Challenge", "Lose Ambassador"])
    # p0 and p1: 2 cards and 3 coins each; p2 lost a card
    assert s.is_terminal() and s.coins == [3, 3, 2]
    assert s.returns() == pytest.approx([0.25, 0.25, -0.5])
