"""escapebench.llm"""
