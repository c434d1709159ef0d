// Poker renderer (filled in when the poker game lands; the generic renderer is used until then).
"use strict";
