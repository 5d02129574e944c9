return '0.9.2'
