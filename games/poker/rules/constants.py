"""The engine's words: action indices, betting structures, states and decision kinds."""

# -- action indices (as in the XML protocol's texasmessage/action/index) ------------------
FOLD, CHECK, CALL, BET, RAISE, POST, SIT_OUT, SIT_IN, SHOW, MUCK, DISCARD = range(11)
TAKE_SEAT, LEAVE_SEAT, ADD_BOT = 11, 12, 13
ACTION_NAMES = (
    "fold",
    "check",
    "call",
    "bet",
    "raise",
    "post",
    "sitout",
    "sitin",
    "show",
    "muck",
    "discard",
    "takeseat",
    "leaveseat",
    "addbot",
)

# -- betting structures (gameinfo ``limitstyle``) -----------------------------------------
FIXED_LIMIT, POT_LIMIT, NO_LIMIT = 0, 1, 2
LIMIT_NAMES = {FIXED_LIMIT: "fixed-limit", POT_LIMIT: "pot-limit", NO_LIMIT: "no-limit"}

# -- states ------------------------------------------------------------------------------
WAIT_PLAYERS = "waitplayers"
BLIND_ROUND = "blind round"
NEW_DEAL = "new deal"
BET_ROUND = "bet round"
DISCARD_ROUND = "discard round"
DEAL_CARDS = "deal card round"
LESS_THAN_TWO = "less than two players"
WINNINGS = "winnings"
MUCK_ROUND = "muck round"
SHOWDOWN = "showdown"

# -- decision kinds (``Table.turn.kind``) ------------------------------------------------
BLIND, BETTING, DISCARDING, SHOWING = "blind", "bet", "discard", "show"
