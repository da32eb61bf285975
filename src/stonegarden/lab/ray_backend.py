"""Self-play tasks as Ray tasks (``--backend ray``): on a Ray instance of the command's own,
or on the cluster at ``--address``, checked first (it answers as Ray does, has CPUs, and each
node runs this stonegarden), each game as it finishes handed to the runner's ``done``."""

from __future__ import annotations

import inspect
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .. import __version__
from ..errors import JobError, ParameterError, StonegardenError
from ..search.config import share_cores
from .selfplay import play_game

#: a game to play (``selfplay.play_game``'s task) and what is called with each one's result
Task = dict[str, Any]
OnResult = Callable[[Task, dict[str, Any]], None]


def _play_on_one_core(task: Task) -> tuple[dict[str, Any], str]:
    """``play_game`` as a Ray task, which holds one of Ray's CPUs: "every core" is one; with
    the id of the node that played it."""
    import ray

    share_cores(1)
    return play_game(task), ray.get_runtime_context().get_node_id()


def _ray_result(ray: Any, ref: Any) -> tuple[dict[str, Any], str]:
    """The task's result and the node that played it; our own error in a task (an agent that
    does not fit the game, say) is raised as itself, as a local worker's is, not inside Ray's
    remote traceback.

    Raises:
        JobError: the task's worker or machine died (out of memory, a lost node), after the
            retries Ray makes, as a local worker's death is; or the node it went to cannot
            import stonegarden (one that joined the cluster after the run's check of it).
    """
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        if isinstance(exc.cause, StonegardenError):
            raise exc.cause from None
        why = _import_failure(exc.cause)
        if why:
            raise JobError(f"a node of the Ray cluster cannot import stonegarden ({why}); "
                           f"install stonegarden {__version__} with [ray] on each machine of "
                           "the cluster", reason="input") from None
        raise
    except ray.exceptions.RayError as exc:  # no error of the game's: where it ran is gone
        raise JobError(f"a Ray worker running a game ended abruptly ({type(exc).__name__}: "
                       f"{str(exc).strip().splitlines()[0] if str(exc).strip() else 'no detail'})",
                       reason="died") from None


def _import_failure(cause: BaseException) -> str:
    """The last line of the error a node met importing the games' task (Ray says so in the
    text of a RuntimeError only), '' for any other error."""
    text = str(cause)
    if not isinstance(cause, RuntimeError) or "failed to import on the worker" not in text:
        return ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return next((ln for ln in reversed(lines) if "Error" in ln.split(":")[0]), "no detail")


#: seconds for a Ray cluster's address to accept a connection, and then to answer, before Ray
#: is asked to join it
REACH_SECONDS = 10.0

#: what an HTTP/2 client (gRPC, which a Ray cluster's address speaks) sends first: the preface
#: and an empty SETTINGS frame, which a gRPC server answers with a SETTINGS frame of its own
HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
SETTINGS_FRAME = 4


def check_reachable(address: str) -> None:
    """Refuse an ``--address`` (``HOST:PORT``, or ``ray://HOST:PORT``) where nothing accepts a
    connection, or where what does is no Ray cluster (its dashboard's web port, 8265): Ray's
    ``init`` retries such an address without end ("Failed to connect to GCS"), and the
    command waited for ever at 0 games. Other forms are Ray's to read.

    Raises:
        ParameterError: nothing answers at the address within ``REACH_SECONDS``, or not as
        a Ray cluster does.
    """
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isascii() or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_SECONDS) as s:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return  # Ray's TLS: a hello in the clear is not answered, and Ray checks it
            answer = _first_answer(s)
    except (OSError, OverflowError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or "timed out"
        raise ParameterError(
            f"--address {address!r}: no Ray cluster answers ({why.lower()}); start one there "
            "with `ray start --head`, or leave --address out to run Ray on this machine"
        ) from None
    if answer is not None and len(answer) > 3 and answer[3] == SETTINGS_FRAME:
        return
    raise ParameterError(
        f"--address {address!r} is not a Ray cluster's address ({_what_answered(answer)}): "
        "give the one `ray start --head` printed (port 6379 unless it was given --port), not "
        "its dashboard's (8265)")


def _first_answer(sock: socket.socket) -> bytes | None:
    """The first bytes the server at ``sock`` sends back to an HTTP/2 client's hello, ``b""``
    if it closes the connection, ``None`` if it says nothing within ``REACH_SECONDS``."""
    sock.sendall(HTTP2_HELLO)
    answer = b""
    try:
        while len(answer) < 4:  # a frame's type is its fourth byte
            chunk = sock.recv(64)
            if not chunk:
                break
            answer += chunk
    except TimeoutError:
        return answer or None
    except ConnectionResetError:
        pass
    return answer


def _what_answered(answer: bytes | None) -> str:
    if answer is None:
        return f"no answer within {REACH_SECONDS:g} s"
    if not answer:
        return "it closed the connection"
    if answer.startswith(b"HTTP/") or b"<html" in answer.lower():
        return "a web server answers"
    return "something else answers"


def run_ray(tasks: Sequence[Task], done: OnResult, workers: int, address: str | None) -> None:
    try:
        import ray
    except ImportError:
        raise ParameterError("--backend ray needs Ray: pip install 'stonegarden[ray]'") from None
    started = False
    if not ray.is_initialized():
        _init_ray(ray, workers, address)
        started = True
    try:
        if address:
            check_cluster(ray, address)
        remote = ray.remote(_play_on_one_core)
        pending = {remote.remote(t): t for t in tasks}
        nodes: dict[str, int] = {}  # games played on each node, by its id
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                result, node = _ray_result(ray, ref)
                nodes[node] = nodes.get(node, 0) + 1
                done(pending.pop(ref), result)
        if address:
            print(f"played on the Ray cluster at {address}: {_games_by_node(ray, nodes)}",
                  file=sys.stderr)
    finally:
        if started:
            ray.shutdown()


def _init_ray(ray: Any, workers: int, address: str | None) -> None:
    """Join the cluster at ``address``, or start a Ray instance of the command's own. Ray puts
    a SIGTERM handler of its own in place (a stack dump, and the command ended without saying
    what it stored): the command's is put back, which stops as a Ctrl-C does.

    Raises:
        ParameterError: Ray finds no cluster at ``address``.
    """
    on_sigterm = signal.getsignal(signal.SIGTERM)
    try:
        if address:
            print(f"connecting to the Ray cluster at {address} ...", file=sys.stderr)
            _token_of_this_machine()
            try:
                ray.init(address=address, log_to_driver=False)
            except ConnectionError as exc:
                raise ParameterError(
                    f"--address {address!r}: no Ray cluster answers ({exc}); start one there "
                    "with `ray start --head`, or leave --address out to run Ray on this "
                    "machine (a cluster that asks for a token needs its head's "
                    "~/.ray/auth_token here too)") from None
        else:  # an instance of its own with --workers CPUs, whatever RAY_ADDRESS or a
            # `ray start` on this machine name (Ray would join those, and refuse num_cpus)
            ray.init(address="local", num_cpus=max(1, workers), include_dashboard=False,
                     log_to_driver=False)
    finally:
        if on_sigterm is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, on_sigterm)


def _token_of_this_machine() -> None:
    """Join with the token Ray keeps on this machine (``~/.ray/auth_token``, which a Ray of the
    command's own makes), if there is one, as ``ray start --head`` does here: a head started
    where it is asks for it, and Ray joined without it, retrying for half a minute, then said
    no cluster answers. A cluster that asks for none lets a client with one join all the same."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available as use_token,
        )
    except ImportError:  # a Ray without token authentication
        return
    said = logging.getLogger(use_token.__module__)  # "enabled for this cluster": not ours
    level = said.level
    said.setLevel(logging.ERROR)
    # Rays that have the function without its argument (it came later) stopped every run
    # with --address at a TypeError
    quiet = ({"warn_if_disabled": False}
             if "warn_if_disabled" in inspect.signature(use_token).parameters else {})
    try:
        use_token(**quiet)
    finally:
        said.setLevel(level)


#: seconds each node of a cluster has to say which stonegarden it has (a worker process is
#: started there for it) before the games start; a node that has not said is not waited for
PROBE_SECONDS = 120.0


def check_cluster(ray: Any, address: str) -> None:
    """Refuse a cluster the games cannot be played on, or not as here: with no CPUs, Ray
    waited for ever at 0 games; a node without stonegarden ended the run in Ray's traceback;
    a node with another version would mix its games with this version's in one study.

    Raises:
        ParameterError: the cluster has no CPU, or a node of it has no stonegarden or
        another version than this command's.
    """
    if ray.cluster_resources().get("CPU", 0) < 1:
        raise ParameterError(
            f"--address {address!r}: the Ray cluster there has no CPU to play games on (its "
            f"nodes were started with --num-cpus 0?); join a machine to it with `ray start "
            f"--address {address}`")
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    probe = ray.remote(num_cpus=0)(_version_probe())
    asked = {probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
        node_id=n["NodeID"], soft=False)).remote(): n for n in ray.nodes()
        if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1}
    answered, _ = ray.wait(list(asked), num_returns=len(asked), timeout=PROBE_SECONDS)
    for ref in answered:
        try:
            version, error = ray.get(ref)
        except ray.exceptions.RayError:  # the node went: its games go elsewhere
            continue
        node = _node_name(asked[ref])
        if error:
            raise ParameterError(
                f"--address {address!r}: the Ray cluster's node {node} cannot import "
                f"stonegarden ({error}); install stonegarden {__version__} with [ray] on "
                "each machine of the cluster")
        if version != __version__:
            raise ParameterError(
                f"--address {address!r}: the Ray cluster's node {node} has stonegarden "
                f"{version}, this command {__version__}; install the same version on each "
                "machine of the cluster (its games would be mixed with this version's)")


def _version_probe() -> Callable[[], tuple[str | None, str | None]]:
    """A function that says which stonegarden the process it runs in can import: made here,
    so that Ray sends it by value, to nodes where ``stonegarden`` itself cannot be imported."""
    def version_here() -> tuple[str | None, str | None]:
        try:
            import stonegarden
            import stonegarden.lab.ray_backend  # what the games' task is in
        except ImportError as exc:
            return None, f"{type(exc).__name__}: {exc}"
        return str(getattr(stonegarden, "__version__", "unknown")), None
    return version_here


def _node_name(node: dict[str, Any]) -> str:
    """A node as ``ray status`` and its logs show it: its address and the start of its id."""
    return f"{node.get('NodeManagerAddress', '?')} ({str(node.get('NodeID', ''))[:8]})"


def _games_by_node(ray: Any, games: dict[str, int]) -> str:
    """How many games each node played: ``192.0.2.7 (3b3cc1ba) 17 games, ...``."""
    names = {n["NodeID"]: _node_name(n) for n in ray.nodes()}
    return ", ".join(f"{names.get(node, node[:8])} {count} game{'s' if count != 1 else ''}"
                     for node, count in sorted(games.items(), key=lambda kv: -kv[1]))
