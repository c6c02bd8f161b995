(function(){
var G=JSON.parse(document.getElementById('game').textContent);
var board=document.getElementById('board'),racks=document.getElementById('racks');
var moves=document.getElementById('moves'),slider=document.getElementById('slider');
var label=document.getElementById('label'),result=document.getElementById('result');
var playBtn=document.getElementById('play'),last=G.steps.length-1,at=0,timer=null;
function glyph(name){
  var g=G.glyphs[name];
  if(g===undefined){return document.createTextNode(name);}
  if(g.indexOf('svg:')===0){
    var ns='http://www.w3.org/2000/svg',s=document.createElementNS(ns,'svg'),u=document.createElementNS(ns,'use');
    s.setAttribute('class','glyph');s.setAttribute('viewBox','0 0 24 24');
    u.setAttribute('href','#sym-'+g.slice(4));s.appendChild(u);return s;}
  return document.createTextNode(g);}
function tile(color,name){
  var t=document.createElement('span');t.className='tile';t.style.background=G.colors[color];
  t.setAttribute('data-color',color);t.setAttribute('data-tile',name);t.title=color+' '+name;
  t.appendChild(glyph(name));return t;}
var cells=[];
for(var i=0;i<81;i++){
  var c=document.createElement('div'),row=Math.floor(i/9),col=i%9;
  c.className='cell r'+((Math.floor(row/3)+Math.floor(col/3))%2)+(col%3===0&&col?' c3':'')+(row%3===0&&row?' row3':'');
  c.setAttribute('data-cell',G.cells[i]);c.setAttribute('data-region',G.regions[i]);
  board.appendChild(c);cells.push(c);}
G.steps.forEach(function(s,k){
  var li=document.createElement('li');li.setAttribute('data-step',k);li.textContent=s.label;
  li.addEventListener('click',function(){stop();show(k);});moves.appendChild(li);});
slider.max=last;
function show(k){
  at=Math.max(0,Math.min(last,k));var s=G.steps[at];
  for(var i=0;i<81;i++){
    var c=cells[i],v=s.board[i];c.textContent='';c.classList.remove('last','captured');
    c.removeAttribute('data-color');c.removeAttribute('data-tile');
    if(v){c.appendChild(tile(v[0],v[1]));c.setAttribute('data-color',v[0]);c.setAttribute('data-tile',v[1]);
      if(v.length>2){c.classList.add('captured');c.title='captured '+v[2];}else{c.title='';}}
    else{var r=document.createElement('span');r.className='region';r.appendChild(glyph(G.regions[i]));c.appendChild(r);
      c.title=G.regions[i];}
    if(G.cells[i]===s.cell){c.classList.add('last');}}
  racks.textContent='';
  s.racks.forEach(function(r){
    var d=document.createElement('div');d.className='rack';d.setAttribute('data-color',r.color);
    var w=document.createElement('span');w.className='who';
    var caps=s.captures[r.seat],ct=Object.keys(caps).map(function(k){return caps[k]+' '+k;}).join(', ');
    w.textContent=r.color+' (seat '+r.seat+' '+G.names[r.seat]+')';d.appendChild(w);
    r.tiles.forEach(function(t){d.appendChild(tile(r.color,t));});
    var p=document.createElement('span');p.className='pile';p.setAttribute('data-pile',r.pile);
    p.textContent=r.finished?' finished':' '+r.pile+' in the pile';d.appendChild(p);
    var cp=document.createElement('span');cp.className='captures';cp.textContent=ct?' captured: '+ct:'';
    d.appendChild(cp);racks.appendChild(d);});
  Array.prototype.forEach.call(moves.children,function(li,k){
    if(k===at){li.classList.add('current');li.setAttribute('aria-current','step');
      var top=li.offsetTop;
      if(top<moves.scrollTop||top>moves.scrollTop+moves.clientHeight-20){moves.scrollTop=top-moves.clientHeight/2;}}
    else{li.classList.remove('current');li.removeAttribute('aria-current');}});
  slider.value=at;label.textContent='step '+at+' of '+last+': '+s.label;
  result.hidden=at!==last;document.body.setAttribute('data-step',at);}
function stop(){if(timer){clearInterval(timer);timer=null;}playBtn.textContent='\u25b6 play';}
function play(){if(timer){stop();return;}if(at===last){show(0);}
  playBtn.textContent='\u23f8 pause';timer=setInterval(function(){if(at>=last){stop();}else{show(at+1);}},700);}
document.getElementById('first').onclick=function(){stop();show(0);};
document.getElementById('back').onclick=function(){stop();show(at-1);};
document.getElementById('forward').onclick=function(){stop();show(at+1);};
document.getElementById('last').onclick=function(){stop();show(last);};
playBtn.onclick=play;
slider.addEventListener('input',function(){stop();show(parseInt(slider.value,10));});
document.addEventListener('keydown',function(e){
  if(e.target===slider){return;}
  if(e.key==='ArrowRight'){stop();show(at+1);e.preventDefault();}
  else if(e.key==='ArrowLeft'){stop();show(at-1);e.preventDefault();}
  else if(e.key==='Home'){stop();show(0);e.preventDefault();}
  else if(e.key==='End'){stop();show(last);e.preventDefault();}
  else if(e.key===' '){play();e.preventDefault();}});
show(0);
})();
