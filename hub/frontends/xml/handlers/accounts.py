"""Account requests: ``accountmanagement/*`` and ``authentication/*``.

Each handler takes the front end, the connection's session and the request, and
returns the response element (a coroutine for the ones that ask the store).  The
connection's rules (:mod:`..states`) have checked the request's session first.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from twisted.logger import Logger

from .. import encoding, events
from ..context import HandlerContext
from ..errors import Refused
from ..states import State

if TYPE_CHECKING:
    from ..connection import Connection

ACCOUNT_TYPES = {0: "player", 1: "bot", 2: "admin"}

log = Logger()


def store(frontend: HandlerContext) -> Any:
    """The hub's account store.

    :raises Refused: 503, the hub has none.
    """
    found = frontend.hub.store
    if found is None:
        raise Refused(503, "accounts are not available on this hub")
    return found


def is_admin(conn: Connection) -> bool:
    """Whether the connection's account is an admin."""
    return conn.account is not None and conn.account.type == "admin"


async def create_account(
    frontend: HandlerContext, conn: Connection, r: events.CreateAccount
) -> Any:
    """``accountmanagement/create``: only an admin creates admin accounts."""
    kind = ACCOUNT_TYPES.get(r.accounttype)
    if kind is None:
        raise Refused(400, "accounttype is 0 (player), 1 (bot) or 2 (admin)")
    if kind == "admin" and not (is_admin(conn) and r.sessionid == conn.lobby_session):
        raise Refused(403, "only an admin creates admin accounts")
    await store(frontend).create_account(r.accountname, r.password, kind)
    return encoding.build_response(
        "accountmanagement", "create", description=f"account {r.accountname} created",
        sessionid=r.sessionid,
    )  # fmt: skip


async def delete_account(
    frontend: HandlerContext, conn: Connection, r: events.DeleteAccount
) -> Any:
    """``accountmanagement/delete`` with the account's password (an admin deletes
    another account with its own); deleting one's own account logs out."""
    accounts = store(frontend)
    me = conn.account.name if conn.account is not None else None
    if me is not None and r.sessionid and is_admin(conn) and r.accountname != me:
        await accounts.authenticate(me, r.password, conn.peer)
    else:
        await accounts.authenticate(r.accountname, r.password, conn.peer)
    await accounts.delete_account(r.accountname)
    if me is not None and me.lower() == r.accountname.lower():
        await frontend.resumes.logout(conn)
        frontend.sessions.end_all(conn)
    return encoding.build_response(
        "accountmanagement", "delete", description=f"account {r.accountname} deleted",
    )  # fmt: skip


async def change_password(
    frontend: HandlerContext, conn: Connection, r: events.ChangePassword
) -> Any:
    """``accountmanagement/changepassword`` with the old password."""
    await store(frontend).change_password(r.accountname, r.oldpassword, r.newpassword, conn.peer)
    await frontend.resumes.password_changed(r.accountname, conn)
    return encoding.build_response(
        "accountmanagement", "changepassword", description="password changed",
        sessionid=r.sessionid,
    )  # fmt: skip


async def login(frontend: HandlerContext, conn: Connection, r: events.Login) -> Any:
    """``authentication/login``: the account and a new lobby session.  Another hub of
    the cluster logs in on a client's behalf with a ticket (:mod:`hub.cluster.credential`)
    in place of the password."""
    cluster = frontend.hub.cluster
    token = None
    ticket = cluster is not None and cluster.trusts(r.accountname, r.password, conn.peer)
    if ticket:
        account = await store(frontend).get_account(r.accountname)
    else:
        account = await store(frontend).authenticate(r.accountname, r.password, conn.peer)
        token = await frontend.resumes.issue(account.name)
    if conn.state is not State.CONNECTED:  # logged in or gone meanwhile
        frontend.resumes.abandoned(token)
        raise Refused(409, "already logged in")
    conn.log_in(account, frontend.sessions.open_lobby(conn))
    frontend.resumes.logged_in(conn, token, ticket)
    log.info(
        "xml {conn}: {name} logged in from {peer}",
        conn=conn.conn_id, name=account.name, peer=conn.peer,
    )  # fmt: skip
    return encoding.build_response(
        "authentication", "login", sessionid=conn.lobby_session, name=account.name,
        type=account.type_code, balance=encoding.money(Decimal(account.balance)),
        resumetoken=token,
    )  # fmt: skip


def resume(frontend: HandlerContext, conn: Connection, r: events.Resume) -> Any:
    """``authentication/resume``: a lost session back (:mod:`..resume`)."""
    return frontend.resumes.resume(conn, r)


async def logout(frontend: HandlerContext, conn: Connection, r: events.Logout) -> Any:
    """``authentication/logout``: every session of the connection ends (its seats are
    left) and its resume token is dropped."""
    sid = conn.lobby_session
    await frontend.resumes.logout(conn)
    frontend.sessions.end_all(conn)
    return encoding.build_response("authentication", "logout", sessionid=sid)
