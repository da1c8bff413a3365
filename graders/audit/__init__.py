"""andrea-audit: the spec against implementations (`impl`), course documents (`docs`) and itself (`spec`).

    from graders.audit.docs import audit_document      # -> DocReport (findings, numbers read)
    from graders.audit.spec_audit import audit_spec    # -> SpecReport
    from graders.audit.impl import build_matrix        # -> traceability matrix (plain data)
"""
