"""The Empresa area: the company's fiscal settings (regime, legends, paper), branches, logo, signing
certificates and CAE ranges, managed by admins and recorded in an audit trail."""
