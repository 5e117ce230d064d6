module kvcache-go-webhook

go 1.19
