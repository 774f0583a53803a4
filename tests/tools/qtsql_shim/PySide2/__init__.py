# see QtSql.py
