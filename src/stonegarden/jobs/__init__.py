"""Background jobs in worker processes: bounded, fair, stoppable and self-healing.

A job is a *kind* (a function registered with :func:`job_kind` in a module the workers
import), plain JSON arguments, the client it is done for, a deadline and a memory bound.
:class:`JobPool` runs jobs in worker processes, each queue fair between clients and bounded;
a job can be cancelled (queued or running), reports progress, is stopped at its deadline (and
its worker ended if it does not stop), and fails cleanly when its worker dies, which is then
replaced. Workers end with the server however it ends: they ask the kernel for SIGKILL when
their parent dies, and they also exit when the pipe from the server closes.
"""

from .kinds import JobContext, job_kind
from .pool import Job, JobPool, Limits

__all__ = ["Job", "JobContext", "JobPool", "Limits", "job_kind"]
