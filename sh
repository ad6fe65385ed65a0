exit 127
