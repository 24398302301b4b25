module github.com/botgw/botgw

go 1.26
