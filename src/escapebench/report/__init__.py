"""escapebench.report"""
