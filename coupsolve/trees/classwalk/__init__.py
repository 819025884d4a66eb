"""Two-player Coup's public tree by the *class walk*: level by level over private classes, never over
histories. :mod:`~.build` builds it, :mod:`~.count` counts it by parts; :mod:`~.walk`, :mod:`~.children`,
:mod:`~.emit`, :mod:`~.state` and :mod:`~.table` are the walk's compiled steps.
"""
