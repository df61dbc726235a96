ByJ(Üef=EÌÔ>Üef=Üef=‰ÍÔ>=Jqw>ï¦w>
±w>7±w>