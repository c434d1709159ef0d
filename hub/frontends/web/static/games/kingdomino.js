// King Domino renderer (filled in when the domino game lands; the generic renderer is used until then).
"use strict";
