"""Training, evaluation, tournaments and studies on top of :mod:`uno_env` and :mod:`agents`.

Also home of the ``uno-env`` command line (:mod:`training.cli`), the top layer of the
project: ``training -> agents -> uno_env``.
"""
