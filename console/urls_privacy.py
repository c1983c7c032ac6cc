"""Console privacy pages: data-subject cases and the audit viewer (privacy officers, admins)."""

from django.urls import path

from console.views import privacy

urlpatterns = [
    path("privacy/cases/", privacy.case_list, name="console-privacy-cases"),
    path("privacy/cases/new/", privacy.case_open, name="console-privacy-case-open"),
    path("privacy/cases/<uuid:public_id>/", privacy.case_detail, name="console-privacy-case"),
    path(
        "privacy/cases/<uuid:public_id>/execute/",
        privacy.case_execute,
        name="console-privacy-case-execute",
    ),
    path(
        "privacy/cases/<uuid:public_id>/approve/",
        privacy.case_approve,
        name="console-privacy-case-approve",
    ),
    path(
        "privacy/cases/<uuid:public_id>/reject/",
        privacy.case_reject,
        name="console-privacy-case-reject",
    ),
    path(
        "privacy/cases/<uuid:public_id>/export/",
        privacy.case_export,
        name="console-privacy-case-export",
    ),
    path("audit/", privacy.audit_list, name="console-audit"),
    path("audit/export.csv", privacy.audit_csv, name="console-audit-csv"),
]
