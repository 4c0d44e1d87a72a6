"""The notes wing: what a new turn loads, remember / forget / prefer and archiving, About me's learned lines.

Stands on ``store``, ``text`` and ``disk``.
"""
