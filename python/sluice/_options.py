"""sluice.Options: the runtime options of a pipeline's traversals."""

from . import _args


class Options:
    """Runtime options of a pipeline's traversals (Dataset.with_options).

    cpu_budget: threads for CPU-bound element work (parallel map, batch,
        interleave); 0 = the cores this process may use.
    ram_budget_bytes: hard limit on the bytes buffered by the pipeline
        (prefetch, shuffle, parallel ops, cache); 0 = half the available
        memory. Buffers that would pass it fail with ResourceExhaustedError
        instead of growing.
    deterministic: the order of parallel ops whose own `deterministic`
        argument is None: True keeps the sequential order, False lets
        elements that are ready first overtake (tf.data's
        Options.deterministic).
    """

    __slots__ = ("cpu_budget", "ram_budget_bytes", "deterministic")

    def __init__(self, cpu_budget=0, ram_budget_bytes=0, deterministic=True):
        self.cpu_budget = _args.integer(cpu_budget, "cpu_budget", minimum=0, maximum=2**31 - 1)
        self.ram_budget_bytes = _args.integer(ram_budget_bytes, "ram_budget_bytes", minimum=0)
        self.deterministic = _args.boolean(deterministic, "deterministic")

    def __repr__(self):
        return (
            f"Options(cpu_budget={self.cpu_budget}, ram_budget_bytes={self.ram_budget_bytes}, "
            f"deterministic={self.deterministic})"
        )

    def __eq__(self, other):
        return isinstance(other, Options) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)
