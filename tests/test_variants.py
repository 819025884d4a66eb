"""The variants of docs/rules.md: scripted games through action names, one rule at a time, and the
information each variant hides."""

import pyspiel
import pytest

import coupsolve
from coupsolve import Rules
from coup_helpers import legal_names, play, same_views, views


# ---- Blocking Contessa ----------------------------------------------------------------------------
BLOCKING = Rules.standard(players=2, starting_coins="3,3", contessa_blocks_tax=True)


def test_contessa_blocks_tax_after_its_challenge_round():
    s = play(BLOCKING, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Pass"])
    assert s.current_player() == 1 and legal_names(s) == ["Pass", "Block Contessa"]
    play(BLOCKING, ["Block Contessa", "Pass"], s)
    assert s.coins == [3, 3] and s.turn == 2  # the block stood: no Tax
    # without the option the Tax goes through after the challenge round
    s = play(BLOCKING.replace(contessa_blocks_tax=False),
             ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Pass"])
    assert s.coins == [6, 3] and s.turn == 2


def test_a_bluffed_contessa_block_of_tax_is_caught_and_the_tax_resolves():
    s = play(BLOCKING, ["Deal Duke+Captain", "Deal Captain+Ambassador", "Tax", "Pass", "Block Contessa",
                        "Challenge", "Lose Captain"])
    assert s.coins == [6, 3] and s.influence == [2, 1] and s.turn == 2


def test_a_proven_contessa_block_of_tax_stands():
    s = play(BLOCKING, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Pass", "Block Contessa",
                        "Challenge", "Lose Captain", "Draw Duke"])
    assert s.coins == [3, 3] and s.influence == [1, 2] and s.hand(1) == ["Duke", "Ambassador"]


def test_any_player_may_block_tax_in_seat_order():
    rules = Rules.standard(players=3, contessa_blocks_tax=True)
    s = play(rules, ["Deal Duke+Duke", "Deal Captain+Captain", "Deal Contessa+Contessa", "Tax", "Pass", "Pass"])
    assert s.current_player() == 1 and legal_names(s) == ["Pass", "Block Contessa"]
    play(rules, ["Pass"], s)
    assert s.current_player() == 2
    play(rules, ["Block Contessa"], s)
    assert s.current_player() == 0  # the actor challenges the block first, then p1
    play(rules, ["Pass", "Pass"], s)
    assert s.coins == [2, 2, 2] and s.turn == 2


# ---- the Ambassador's halved steal ------------------------------------------------------------------
HALVES = Rules.standard(players=2, starting_coins="3,3", ambassador_halves_steal=True)


@pytest.mark.parametrize("block,coins", [("Block Ambassador", [4, 2]), ("Block Captain", [3, 3])])
def test_an_ambassador_block_halves_the_steal(block, coins):
    s = play(HALVES, ["Deal Captain+Duke", "Deal Captain+Ambassador", "Steal p1", "Pass", block, "Pass"])
    assert s.coins == coins and s.turn == 2


def test_a_halved_steal_after_a_proven_block_and_a_full_one_after_a_bluff():
    s = play(HALVES, ["Deal Captain+Duke", "Deal Contessa+Ambassador", "Steal p1", "Pass", "Block Ambassador",
                      "Challenge", "Lose Duke", "Draw Duke"])
    assert s.coins == [4, 2] and s.influence == [1, 2]
    s = play(HALVES, ["Deal Captain+Duke", "Deal Contessa+Duke", "Steal p1", "Pass", "Block Ambassador",
                      "Challenge", "Lose Duke"])
    assert s.coins == [5, 1] and s.influence == [2, 1]
    target_broke = HALVES.replace(starting_coins="3,0")
    s = play(target_broke, ["Deal Captain+Duke", "Deal Contessa+Ambassador", "Steal p1", "Pass",
                            "Block Ambassador", "Pass"])
    assert s.coins == [3, 0]


# ---- the challenge bounty ------------------------------------------------------------------------------
def test_the_challenger_takes_the_bounty_before_the_challenge_is_resolved():
    rules = Rules.standard(players=2, starting_coins="3,3", challenge_bounty=1)
    s = play(rules, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Challenge", "Lose Contessa",
                     "Draw Duke"])
    assert s.coins == [6, 4]  # the challenger lost, but keeps the bounty
    s = play(rules, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Foreign Aid", "Block Duke",
                     "Challenge", "Lose Contessa"])
    assert s.coins == [6, 3]  # p0 challenged the block: +1, and the Foreign Aid went through: +2
    two = rules.replace(challenge_bounty=2)
    s = play(two, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Pass"])
    assert s.coins == [6, 3]  # no challenge, no bounty


def test_the_bounty_goes_back_with_the_coins_of_a_challenger_who_goes_out():
    rules = Rules.standard(players=2, starting_coins="3,3", challenge_bounty=1)
    s = play(rules, ["Deal Duke+Captain", "Deal Contessa+Contessa", "Tax", "Challenge", "Draw Duke",
                     "Income", "Tax", "Challenge"])
    # p1 took a bounty twice and went out: its coins went back; p0's second Tax never resolved
    assert s.is_terminal() and s.returns() == [1.0, -1.0] and s.coins == [6, 0]


# ---- the challenge buyout ------------------------------------------------------------------------------
BUYOUT = Rules.standard(players=2, starting_coins="6,6", challenge_buyout=5)


def test_the_loser_of_a_challenge_may_pay_instead():
    s = play(BUYOUT, ["Deal Captain+Ambassador", "Deal Contessa+Contessa", "Tax", "Challenge"])
    assert legal_names(s) == ["Lose Captain", "Lose Ambassador", "Pay 5"]
    play(BUYOUT, ["Pay 5"], s)
    assert s.coins == [1, 6] and s.influence == [2, 2] and s.turn == 2  # the Tax still failed
    assert "p0 Pay 5" in s.information_state_string(1)


def test_the_buyout_is_a_decision_even_when_the_card_is_forced():
    s = play(BUYOUT, ["Deal Captain+Captain", "Deal Contessa+Contessa", "Tax", "Challenge"])
    assert legal_names(s) == ["Lose Captain", "Pay 5"]
    # a challenger who lost to a proof may pay too; the action then goes on
    s = play(BUYOUT, ["Deal Duke+Captain", "Deal Contessa+Contessa", "Tax", "Challenge"])
    assert s.current_player() == 1 and legal_names(s) == ["Lose Contessa", "Pay 5"]
    play(BUYOUT, ["Pay 5", "Draw Duke"], s)
    assert s.coins == [9, 1] and s.influence == [2, 2]


def test_the_buyout_needs_the_coins_and_never_replaces_a_coup():
    poor = BUYOUT.replace(starting_coins="4,4")
    s = play(poor, ["Deal Captain+Ambassador", "Deal Contessa+Contessa", "Tax", "Challenge"])
    assert legal_names(s) == ["Lose Captain", "Lose Ambassador"]
    rich = BUYOUT.replace(starting_coins="7,7")
    s = play(rich, ["Deal Captain+Ambassador", "Deal Contessa+Duke", "Coup p1"])
    assert legal_names(s) == ["Lose Duke", "Lose Contessa"]


def test_the_buyout_comes_before_a_failed_assassinations_refund():
    rules = BUYOUT.replace(starting_coins="8,2")
    s = play(rules, ["Deal Captain+Ambassador", "Deal Contessa+Duke", "Assassinate p1", "Challenge"])
    assert s.coins == [5, 2] and "Pay 5" in legal_names(s)
    play(rules, ["Pay 5"], s)
    assert s.coins == [3, 2] and s.influence == [2, 2]


# ---- declining the proof -------------------------------------------------------------------------------
DECLINE = Rules.standard(players=2, starting_coins="3,3", decline_proof=True)


def test_a_holder_may_decline_the_proof():
    s = play(DECLINE, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Challenge"])
    assert s.current_player() == 0 and legal_names(s) == ["Prove", "Decline"]
    play(DECLINE, ["Decline", "Lose Duke"], s)
    assert s.coins == [3, 3] and s.influence == [1, 2] and s.turn == 2
    s = play(DECLINE, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Challenge", "Prove",
                       "Lose Contessa", "Draw Duke"])
    assert s.coins == [6, 3] and s.influence == [2, 1]


def test_a_declined_proof_looks_like_a_bluff_to_everyone_else():
    declined = play(DECLINE, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Challenge", "Decline",
                              "Lose Captain"])
    bluffed = play(DECLINE, ["Deal Assassin+Captain", "Deal Contessa+Ambassador", "Tax", "Challenge",
                             "Lose Captain"])
    assert same_views(views(declined, 1), views(bluffed, 1))
    assert not same_views(views(declined, 0), views(bluffed, 0))
    # a block can be declined too: the blocker then loses and the action resolves
    s = play(DECLINE, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Assassinate p1", "Pass",
                       "Block Contessa", "Challenge", "Decline", "Lose Contessa"])
    assert s.is_terminal() and s.returns() == [1.0, -1.0]


# ---- Selective Coup --------------------------------------------------------------------------------
SELECTIVE = Rules.standard(players=3, starting_coins="7,2", selective_coup=True)


def test_selective_coup_names_a_target_and_a_character():
    s = play(SELECTIVE, ["Deal Duke+Captain", "Deal Contessa+Duke", "Deal Assassin+Assassin"])
    names = legal_names(s)
    assert "Coup p1 Duke" in names and "Coup p2 Contessa" in names and "Coup p1" not in names
    assert len([n for n in names if n.startswith("Coup ")]) == 10
    play(SELECTIVE, ["Coup p1 Duke"], s)  # a hit: the card is lost without a decision
    assert s.face_up[1] == ["Duke"] and s.influence == [2, 1, 2] and s.coins == [0, 2, 2]
    assert s.current_player() == 1 and s.turn == 2
    assert "p1 Lose Duke" in s.information_state_string(2)


def test_a_missed_selective_coup_shows_the_hand_to_the_couper_only():
    a = play(SELECTIVE, ["Deal Duke+Captain", "Deal Contessa+Duke", "Deal Assassin+Assassin",
                         "Coup p1 Captain"])
    b = play(SELECTIVE, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Deal Assassin+Assassin",
                         "Coup p1 Captain"])
    assert a.influence == [2, 2, 2] and a.coins == [0, 2, 2] and a.turn == 2
    assert "p1 shows Duke+Contessa" in a.information_state_string(0)
    assert "p1 missed by the Coup" in a.information_state_string(2)
    assert "shows" not in a.information_state_string(2) and "shows" not in a.information_state_string(1)
    assert same_views(views(a, 2), views(b, 2))  # the bystander cannot tell the two hands apart
    assert not same_views(views(a, 0), views(b, 0))


def test_the_forced_coup_is_selective_too():
    rules = Rules.standard(players=2, starting_coins="10,2", selective_coup=True, characters="Duke+Captain")
    s = play(rules, ["Deal Duke+Duke", "Deal Captain+Duke"])
    assert legal_names(s) == ["Coup p1 Duke", "Coup p1 Captain"]
    play(rules, ["Coup p1 Captain"], s)
    assert s.influence == [2, 1] and s.face_up[1] == ["Captain"]


# ---- Factions ----------------------------------------------------------------------------------------
FACTIONS = Rules.standard(players=3, starting_coins="3", factions=True)


def test_each_player_chooses_a_side_in_public_after_the_deal():
    s = play(FACTIONS, ["Deal Duke+Captain", "Deal Contessa+Duke", "Deal Assassin+Assassin"])
    assert s.current_player() == 0 and legal_names(s) == ["Faction Up", "Faction Down"]
    play(FACTIONS, ["Faction Up", "Faction Down", "Faction Up"], s)
    assert s.turn == 1 and s.current_player() == 0
    assert "p0 Faction Up; p1 Faction Down; p2 Faction Up" in s.information_state_string(2)
    names = legal_names(s)
    # only p1 is of the other faction
    assert "Steal p1" in names and "Steal p2" not in names and "Assassinate p2" not in names
    assert names[-1] == "Defect"


def test_defect_costs_a_coin_and_flips_the_marker():
    s = play(FACTIONS, ["Deal Duke+Captain", "Deal Contessa+Duke", "Deal Assassin+Assassin",
                        "Faction Up", "Faction Down", "Faction Up", "Defect"])
    assert s.coins == [2, 3, 3] and s.turn == 2
    # p0 and p1 are Down, p2 Up: p1 may target only p2
    names = legal_names(s)
    assert "Steal p2" in names and "Steal p0" not in names
    play(FACTIONS, ["Defect"], s)  # p1 goes Up: p0 Down against p1, p2 Up
    play(FACTIONS, ["Defect"], s)  # p2 goes Down: p0, p2 Down against p1 Up
    names = legal_names(s)
    assert "Steal p1" in names and "Steal p2" not in names


def test_everyone_is_a_target_when_all_share_a_faction():
    s = play(FACTIONS, ["Deal Duke+Captain", "Deal Contessa+Duke", "Deal Assassin+Assassin",
                        "Faction Down", "Faction Down", "Faction Down"])
    names = legal_names(s)
    assert "Steal p1" in names and "Steal p2" in names
    broke = FACTIONS.replace(starting_coins="0")
    s = play(broke, ["Deal Duke+Captain", "Deal Contessa+Duke", "Deal Assassin+Assassin",
                     "Faction Down", "Faction Down", "Faction Down"])
    assert "Defect" not in legal_names(s)  # Defect costs a coin


# ---- every option through OpenSpiel's checks, alone and all together ---------------------------------
VARIANT_GAMES = [
    "python_coup(players=3,turn_limit=20,contessa_blocks_tax=True)",
    "python_coup(players=3,turn_limit=20,ambassador_halves_steal=True)",
    "python_coup(players=3,turn_limit=20,challenge_bounty=1)",
    "python_coup(players=3,turn_limit=20,challenge_buyout=5,starting_coins=4;6)",
    "python_coup(players=3,turn_limit=20,decline_proof=True)",
    "python_coup(players=3,turn_limit=20,selective_coup=True,starting_coins=7;7)",
    "python_coup(players=4,turn_limit=20,factions=True)",
    "python_coup(setup=selection,turn_limit=6,selective_coup=True,challenge_bounty=1,challenge_buyout=2,"
    "decline_proof=True,contessa_blocks_tax=True,ambassador_halves_steal=True,factions=True)",
    "python_coup(players=5,turn_limit=30,selective_coup=True,challenge_bounty=2,challenge_buyout=1,"
    "decline_proof=True,contessa_blocks_tax=True,ambassador_halves_steal=True,factions=True)",
    "python_coup(players=2,turn_limit=20,event_mat=True)",
    "python_coup(players=3,turn_limit=30,marked_cards=True,starting_coins=5;7)",
    "python_coup(setup=selection,turn_limit=8,marked_cards=True,selective_coup=True,starting_coins=7;7)",
    str(coupsolve.load_game(Rules.house(players=3, turn_limit=40))),
    str(coupsolve.load_game(Rules.house(players=5, turn_limit=40, selective_coup=True, factions=True,
                                        contessa_blocks_tax=True, decline_proof=True))),
    "python_coup(players=4,turn_limit=30,event_mat=True,selective_coup=True,challenge_bounty=1,"
    "challenge_buyout=3,decline_proof=True,factions=True,starting_coins=0;1)",
]


@pytest.mark.parametrize("game_string", VARIANT_GAMES)
def test_random_sim_with_variants(game_string):
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)


def test_variant_options_round_trip_through_game_strings():
    rules = Rules(players=3, selective_coup=True, contessa_blocks_tax=True, factions=True,
                  ambassador_halves_steal=True, challenge_bounty=1, challenge_buyout=5, decline_proof=True)
    game = coupsolve.load_game(rules)
    assert pyspiel.load_game(str(game)).rules == rules
    assert Rules.from_json(rules.to_json()) == rules


# ---- the event mat -------------------------------------------------------------------------------------
EVENTS = Rules.standard(players=2, event_mat=True)


def test_the_event_mat_flips_and_pays_on_schedule():
    s = play(EVENTS, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Events Duke+Assassin+Captain+Contessa"])
    # slot 1 is flipped before the first player's first turn: a uniform draw from the four cards
    assert s.is_chance_node()
    assert {s.action_to_string(-1, a): p for a, p in s.chance_outcomes()} == {
        f"Flip {c}": pytest.approx(0.25) for c in ("Duke", "Assassin", "Captain", "Contessa")}
    play(EVENTS, ["Flip Assassin", "Income", "Income"], s)
    assert s.event_flipped == ["Assassin"]
    assert s.coins == [3, 3] and s.turn == 3  # the coin of slot 2 before p0's second turn
    play(EVENTS, ["Tax", "Challenge", "Lose Contessa", "Draw Duke"], s)
    # p1 lost a card: slot 4 is flipped before the next turn
    assert s.is_chance_node() and s.turn == 4
    play(EVENTS, ["Flip Duke", "Income"], s)
    assert s.is_chance_node() and s.turn == 5  # slot 3 before p0's third turn
    play(EVENTS, ["Flip Captain", "Income", "Tax", "Challenge"], s)
    assert s.is_terminal() and s.returns() == [1.0, -1.0]  # p1 bluffed Duke with its last card
    assert s.event_flipped == ["Duke", "Assassin", "Captain"]
    s = play(EVENTS, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Events Duke+Assassin+Captain+Contessa",
                      "Flip Assassin", "Tax", "Challenge", "Lose Ambassador", "Draw Duke", "Flip Duke",
                      "Income", "Exchange", "Challenge", "Lose Captain"])
    # the second lost card: slot 5 before the next turn
    assert s.is_chance_node() and s.turn == 4
    play(EVENTS, ["Flip Contessa"], s)
    assert s.event_flipped == ["Duke", "Assassin", "Contessa"]
    assert s.current_player() == 1
    play(EVENTS, ["Income"], s)  # turn 5, p0's third turn: slot 3 holds the last card (no chance node)
    assert s.event_flipped == ["Duke", "Assassin", "Captain", "Contessa"]
    assert s.current_player() == 0 and s.coins == [5, 4]
    assert "Flip Captain" in s.information_state_string(1)


def test_event_cards_are_hidden_from_everyone_until_flipped():
    a = play(EVENTS, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Events Duke+Assassin+Captain+Contessa",
                      "Flip Assassin"])
    b = play(EVENTS, ["Deal Duke+Captain", "Deal Contessa+Ambassador",
                      "Events Assassin+Ambassador+Ambassador+Duke", "Flip Assassin"])
    for p in (0, 1):
        assert same_views(views(a, p), views(b, p))
        assert "event cards dealt; Flip Assassin" in a.information_state_string(p)


def test_event_mat_schedules_by_player_count():
    five = Rules.standard(players=5, event_mat=True, starting_coins="2")
    s = play(five, ["Deal Duke+Duke", "Deal Captain+Captain", "Deal Contessa+Contessa",
                    "Deal Assassin+Assassin", "Deal Ambassador+Ambassador", "Events Captain", "Income"])
    assert s.event_flipped == ["Captain"]  # one card only, flipped at once (a single outcome)
    assert s.coins[0] == 3
    for _ in range(5):
        play(five, ["Income"], s)
    assert s.coins[0] == 5  # the coin at p0's second turn, then Income


def test_impossible_event_mats_are_refused():
    with pytest.raises(ValueError, match="event_mat with setup=selection"):
        Rules.two_player_selection(event_mat=True)
    with pytest.raises(ValueError, match="event_mat with characters/copies"):
        Rules.standard(players=6, characters="Duke+Captain", copies=6, event_mat=True)


# ---- the marked cards ------------------------------------------------------------------------------
from coupsolve import engine as E  # noqa: E402

MARKED = Rules.standard(players=2, starting_coins="7,7", marked_cards=True)


def _mark(state, k):
    return state.engine_state()[E.S_MARK + k]


def test_deals_tell_the_marked_copies_apart():
    s = coupsolve.load_game(MARKED).new_initial_state()
    outcomes = {s.action_to_string(-1, a): p for a, p in s.chance_outcomes()}
    assert outcomes["Deal Ambassador+Ambassador"] == pytest.approx(2 / 210)
    assert outcomes["Deal Ambassador+Ambassador (Inheritance)"] == pytest.approx(4 / 210)
    assert outcomes["Deal Assassin (Vengeance)+Contessa (Treaty)"] == pytest.approx(2 / 210)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    play(MARKED, ["Deal Duke+Ambassador (Inheritance)"], s)
    assert _mark(s, E.INHERITANCE) == E.LOC_HAND + 0
    assert "p0 marked: Ambassador (Inheritance)" in s.information_state_string(0)
    assert "p0 marks hidden" in s.information_state_string(1)


def test_marks_are_private_until_the_card_is_turned_up():
    a = play(MARKED, ["Deal Duke+Ambassador (Inheritance)", "Deal Captain+Contessa", "Income"])
    b = play(MARKED, ["Deal Duke+Ambassador", "Deal Captain+Contessa", "Income"])
    assert same_views(views(a, 1), views(b, 1))
    assert not same_views(views(a, 0), views(b, 0))
    play(MARKED, ["Coup p0", "Lose Ambassador (Inheritance)"], a)
    assert "p0 Lose Ambassador (Inheritance)" in a.information_state_string(1)


def test_inheritance_pays_four_coins_when_killed_but_not_when_lost_to_a_challenge():
    s = play(MARKED, ["Deal Duke+Captain", "Deal Duke+Ambassador (Inheritance)", "Coup p1"])
    assert legal_names(s) == ["Lose Duke", "Lose Ambassador (Inheritance)"]
    play(MARKED, ["Lose Ambassador (Inheritance)"], s)
    assert s.coins == [0, 11] and s.face_up[1] == ["Ambassador"]
    assert _mark(s, E.INHERITANCE) == E.LOC_FACEUP + 1
    s = play(MARKED, ["Deal Duke+Captain", "Deal Contessa+Ambassador (Inheritance)", "Tax", "Challenge",
                      "Lose Ambassador (Inheritance)", "Draw Duke"])
    assert s.coins == [10, 7]


def test_vengeance_strikes_back_after_a_coup():
    three = Rules.standard(players=3, starting_coins="7,2", marked_cards=True)
    s = play(three, ["Deal Duke+Captain", "Deal Duke+Assassin (Vengeance)", "Deal Contessa+Contessa",
                     "Coup p1", "Lose Assassin (Vengeance)"])
    assert s.current_player() == 1 and legal_names(s) == ["Vengeance p0", "Vengeance p2"]
    play(three, ["Vengeance p2"], s)
    assert s.current_player() == 2 and legal_names(s) == ["Pass", "Block Contessa"]
    play(three, ["Block Contessa"], s)
    assert s.current_player() == 1  # the avenger challenges the block first, then p0
    play(three, ["Pass", "Pass"], s)
    assert s.influence == [2, 1, 2] and s.turn == 2
    assert s.current_player() == 1  # the turn passes on from the couper, p0
    # in two players the only target is the couper (no decision); it costs nothing
    s = play(MARKED, ["Deal Duke+Captain", "Deal Duke+Assassin (Vengeance)", "Coup p1",
                      "Lose Assassin (Vengeance)"])
    assert s.current_player() == 0 and legal_names(s) == ["Pass", "Block Contessa"]
    play(MARKED, ["Pass", "Lose Captain"], s)
    assert s.influence == [1, 1] and s.coins == [0, 7] and s.turn == 2 and s.current_player() == 1
    # an Assassination of the Vengeance Assassin does not trigger it
    s = play(MARKED, ["Deal Assassin+Captain", "Deal Duke+Assassin (Vengeance)", "Assassinate p1", "Pass",
                      "Pass", "Lose Assassin (Vengeance)"])
    assert s.turn == 2 and s.current_player() == 1


def test_treaty_overrides_a_duke_block_of_foreign_aid():
    s = play(MARKED, ["Deal Contessa (Treaty)+Captain", "Deal Duke+Ambassador", "Foreign Aid", "Block Duke"])
    assert legal_names(s) == ["Pass", "Challenge", "Treaty"]
    play(MARKED, ["Treaty"], s)
    assert s.current_player() == 1 and legal_names(s) == ["Pass", "Challenge"]
    play(MARKED, ["Pass"], s)
    assert s.coins == [9, 7] and s.turn == 2
    # challenged: the Treaty Contessa proves it, goes back to the deck, and the Foreign Aid resolves
    s = play(MARKED, ["Deal Contessa (Treaty)+Captain", "Deal Duke+Ambassador", "Foreign Aid", "Block Duke",
                      "Treaty", "Challenge", "Lose Ambassador", "Draw Duke"])
    assert s.coins == [9, 7] and s.influence == [2, 1] and s.hand(0) == ["Duke", "Captain"]
    assert _mark(s, E.TREATY) == E.LOC_DECK
    # a plain Contessa does not prove a Treaty: the block stands
    s = play(MARKED, ["Deal Contessa+Captain", "Deal Duke+Ambassador", "Foreign Aid", "Block Duke",
                      "Treaty", "Challenge", "Lose Captain"])
    assert s.coins == [7, 7] and s.influence == [1, 2] and s.turn == 2


def test_a_proof_shows_the_plain_copy_and_keeps_the_mark():
    s = play(MARKED, ["Deal Ambassador+Ambassador (Inheritance)", "Deal Duke+Captain", "Exchange", "Challenge",
                      "Lose Duke", "Draw Contessa", "Draw Duke+Captain"])
    assert _mark(s, E.INHERITANCE) == E.LOC_HAND + 0
    names = legal_names(s)
    assert "Keep Ambassador (Inheritance)+Contessa" in names and "Keep Ambassador+Contessa" not in names
    assert "Keep Duke+Ambassador (Inheritance)" in names and "Keep Duke+Captain" in names
    play(MARKED, ["Keep Duke+Ambassador (Inheritance)"], s)
    assert s.hand(0) == ["Duke", "Ambassador"] and _mark(s, E.INHERITANCE) == E.LOC_HAND + 0
    # only the marked copy: it proves the claim and goes back to the deck
    s = play(MARKED, ["Deal Ambassador (Inheritance)+Duke", "Deal Duke+Captain", "Exchange", "Challenge",
                      "Lose Duke", "Draw Contessa"])
    assert _mark(s, E.INHERITANCE) == E.LOC_DECK


def test_marked_cards_in_the_selection_setup_are_in_the_third_set():
    rules = Rules.two_player_selection(turn_limit=2, marked_cards=True)
    s = play(rules, ["Choose Ambassador", "Choose Assassin"])
    names = sorted(s.action_to_string(-1, a) for a, _ in s.chance_outcomes())
    assert names == ["Deal Ambassador (Inheritance)", "Deal Assassin (Vengeance)", "Deal Captain",
                     "Deal Contessa (Treaty)", "Deal Duke"]


def test_a_selective_coup_lets_the_target_choose_between_marked_and_plain_copies():
    rules = MARKED.replace(selective_coup=True)
    s = play(rules, ["Deal Duke+Captain", "Deal Ambassador+Ambassador (Inheritance)", "Coup p1 Ambassador"])
    assert legal_names(s) == ["Lose Ambassador", "Lose Ambassador (Inheritance)"]
    s = play(rules, ["Deal Duke+Captain", "Deal Ambassador (Inheritance)+Duke", "Coup p1 Captain"])
    assert "p1 marked: Ambassador (Inheritance)" in s.information_state_string(0)  # shown with its mark
    assert "p1 shows Duke+Ambassador" in s.information_state_string(0)


def test_a_marked_event_card_is_flipped_by_name():
    rules = Rules.standard(players=2, marked_cards=True, event_mat=True)
    s = play(rules, ["Deal Duke+Captain", "Deal Duke+Captain",
                     "Events Assassin+Ambassador+Ambassador (Inheritance)+Contessa"])
    names = {s.action_to_string(-1, a): p for a, p in s.chance_outcomes()}
    assert names == {"Flip Assassin": 0.25, "Flip Ambassador": 0.25, "Flip Contessa": 0.25,
                     "Flip Ambassador (Inheritance)": 0.25}
    play(rules, ["Flip Ambassador (Inheritance)"], s)
    assert _mark(s, E.INHERITANCE) == E.LOC_EVENT_UP and s.event_flipped == ["Ambassador"]


def test_the_house_preset_switches_every_house_rule_on():
    rules = Rules.house()
    assert rules.ambassador_halves_steal and rules.marked_cards and rules.event_mat
    assert rules.coins_by_turn_order == (0, 1)
    assert (rules.challenge_bounty, rules.challenge_buyout) == (1, 5)
    assert not (rules.selective_coup or rules.contessa_blocks_tax or rules.factions or rules.decline_proof)
    assert Rules.house(players=4, turn_limit=9).players == 4
    game = coupsolve.load_game(rules)
    assert pyspiel.load_game(str(game)).rules == rules
    s = play(rules, ["Deal Duke+Captain", "Deal Ambassador (Inheritance)+Contessa",
                     "Events Assassin+Assassin (Vengeance)+Captain+Contessa (Treaty)", "Flip Captain"])
    assert s.coins == [0, 1] and s.current_player() == 0


def test_the_analysis_counts_treaty_claims():
    from coupsolve.analysis.history import analyse

    rules = Rules.standard(players=2, turn_limit=1, characters="Duke+Contessa", copies=3, marked_cards=True,
                           starting_coins="1,1")
    coup_tree = coupsolve.build_coup_tree(rules)
    rows = {r.claim: r for r in analyse(coup_tree, coup_tree.tree.uniform_policy()).claims}
    # p0: Foreign Aid 1/3, p1 blocks 1/2, p0 claims the Treaty 1/3; p0 holds the Treaty with probability 1/3
    treaty = rows["Treaty"]
    assert treaty.made == pytest.approx(1 / 18)
    assert treaty.bluff == pytest.approx(2 / 3)
    assert treaty.challenged == pytest.approx(1 / 2)
    assert treaty.challenge_success == pytest.approx(2 / 3)


def test_marked_card_names_are_accepted_in_any_order_and_case():
    from coupsolve.names import canonical_name

    assert canonical_name("keep ambassador (inheritance)+duke") == "Keep Duke+Ambassador (Inheritance)"
    assert canonical_name("Keep Ambassador (Inheritance)+Ambassador") == "Keep Ambassador+Ambassador (Inheritance)"
    s = play(MARKED, ["Deal Ambassador+Duke", "Deal Duke+Captain", "Exchange", "Pass",
                      "draw contessa (treaty)+ambassador (inheritance)", "Keep Contessa (Treaty)+Ambassador"])
    assert s.hand(0) == ["Ambassador", "Contessa"] and _mark(s, E.TREATY) == E.LOC_HAND + 0
    assert _mark(s, E.INHERITANCE) == E.LOC_DECK
